import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct PreferenceResolutionTests {
    /// Seed §3.3, row by row.
    @Test(arguments: [
        (false, true, Bool?.none, false),
        (false, false, Bool?.some(true), false),
        (true, false, Bool?.none, false),
        (true, true, Bool?.none, true),
        (true, true, Bool?.some(false), false),
        (true, false, Bool?.some(true), true),
    ])
    func seedTable(global: Bool, personal: Bool, override: Bool?, notify: Bool) {
        let decision = PreferenceResolution.suppression(
            globalEnabled: global, muted: false, personal: personal, override: override)
        #expect((decision == nil) == notify)
    }

    @Test func reasonsFollowResolutionOrder() {
        #expect(
            PreferenceResolution.suppression(globalEnabled: false, muted: true, personal: false, override: false)
                == .globalOff)
        #expect(
            PreferenceResolution.suppression(globalEnabled: true, muted: true, personal: true, override: true) == .muted
        )
        #expect(
            PreferenceResolution.suppression(globalEnabled: true, muted: false, personal: true, override: false)
                == .overrideOff)
        #expect(
            PreferenceResolution.suppression(globalEnabled: true, muted: false, personal: false, override: nil)
                == .typeOff)
        #expect(
            PreferenceResolution.suppression(globalEnabled: true, muted: false, personal: nil, override: nil) == nil)
    }

    /// Every combination of global × type toggle × override (none, on, off) × muted, for every event type: the SQL
    /// expansion notifies exactly the members the pure function notifies, and records the same reason.
    @Test(arguments: EventType.allCases)
    func sqlExpansionAgreesWithThePureFunction(type: EventType) async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let owner = try await db.user("owner")
        let project = ExternalID("p1")!
        _ = try await db.directory.putProject(project, name: "P", owner: owner)
        // The project's owner is the actor, so only the 24 combination members can receive anything.
        var expected: [String: SuppressionReason?] = [:]
        var deviceOf: [UUID: String] = [:]
        for global in [true, false] {
            for personal in [true, false] {
                for override in [Bool?.none, true, false] {
                    for muted in [true, false] {
                        let name = "u-\(global)-\(personal)-\(override.map(String.init) ?? "nil")-\(muted)"
                        let user = try await db.user(name)
                        _ = try await db.directory.putMember(project: project, user: user)
                        deviceOf[try await db.device(user)] = name
                        var personalChanges = PersonalPreferenceChanges()
                        personalChanges.pushEnabled = global
                        switch type {
                        case .newFeedback: personalChanges.pushNewFeedback = personal
                        case .newComment: personalChanges.pushNewComments = personal
                        case .newVote: personalChanges.pushVotes = personal
                        case .statusChange: personalChanges.pushStatusChanges = personal
                        }
                        _ = try await db.preferences.updatePersonal(user, personalChanges)
                        var changes = ProjectOverrideChanges()
                        changes.muted = muted
                        let change = override.map(OverrideChange.set) ?? .clear
                        switch type {
                        case .newFeedback: changes.newFeedback = change
                        case .newComment: changes.newComments = change
                        case .newVote: changes.votes = change
                        case .statusChange: changes.statusChanges = change
                        }
                        _ = try await db.preferences.updateProjectPreferences(user, project: project, changes)
                        expected[name] = PreferenceResolution.suppression(
                            globalEnabled: global, muted: muted, personal: personal, override: override)
                    }
                }
            }
        }
        #expect(expected.count == 24)
        // Votes and status changes reach the submitter and voters rather than the members: name them all.
        let everyone = expected.keys.map { PersonReference.user(ExternalID($0)!) }
        let event = try Event(
            type: type, project: project, feedback: try FeedbackReference(id: "f1", title: "Dark mode"), actor: owner,
            submitter: type == .newFeedback ? nil : everyone[0], voters: type == .statusChange ? everyone : [],
            voteCount: 3, newStatus: FeedbackStatus("in_progress"))
        let notification = try await db.send(event)
        let reached = Set(try await db.deliveries(notification).keys.compactMap { deviceOf[$0] })
        let suppressed = try await db.suppressions(notification)
        if type == .newVote {
            // Only the submitter hears about votes.
            let submitter = everyone[0].userName
            #expect(reached.isSubset(of: [submitter]))
            #expect(reached.contains(submitter) == (expected[submitter]! == nil))
            #expect(suppressed[submitter] == expected[submitter]!?.rawValue)
            return
        }
        for (name, reason) in expected {
            #expect(reached.contains(name) == (reason == nil), "\(name)")
            #expect(suppressed[name] == reason?.rawValue, "\(name)")
        }
    }
}

extension PersonReference {
    var userName: String {
        if case .user(let id) = self { id.rawValue } else { "" }
    }
}
