import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct ExpansionTests {
    /// owner, two members (one muted, one with no device), an outsider submitter and two voters, one of whom is
    /// also a member; the submitter has an inactive device too.
    struct World {
        let db: CoreDatabase
        let project = ExternalID("proj")!
        var devices: [String: [UUID]] = [:]

        static func make() async throws -> World {
            var world = World(db: try await CoreDatabase.make())
            let db = world.db
            for name in ["owner", "alice", "bob", "carol", "sub", "voter"] {
                try await db.user(name, email: "\(name.uppercased())@Example.com")
            }
            _ = try await db.directory.putProject(world.project, name: "Project", owner: ExternalID("owner")!)
            for member in ["alice", "bob", "carol", "voter"] {
                _ = try await db.directory.putMember(project: world.project, user: ExternalID(member)!)
            }
            for (name, count) in [("owner", 2), ("alice", 1), ("bob", 1), ("sub", 1), ("voter", 1)] {
                for _ in 0..<count { world.devices[name, default: []].append(try await db.device(ExternalID(name)!)) }
            }
            // sub's second device is inactive.
            let stale = try await db.device(ExternalID("sub")!)
            #expect(try await db.devices.remove(stale, of: ExternalID("sub")!, in: .everyApp))
            var mute = ProjectOverrideChanges()
            mute.muted = true
            _ = try await db.preferences.updateProjectPreferences(ExternalID("bob")!, project: world.project, mute)
            return world
        }

        func event(_ type: EventType, actor: String?) throws -> Event {
            try Event(
                type: type, project: project, feedback: try FeedbackReference(id: "fb-1", title: "Dark mode"),
                actor: actor.map { ExternalID($0)! }, submitter: .email("sub@example.COM"),
                voters: [.user(ExternalID("voter")!), .email("sub@example.com"), .email("nobody@example.com")],
                voteCount: 4, oldStatus: FeedbackStatus("pending"), newStatus: FeedbackStatus("in_progress"),
                commentID: "c-9")
        }

        func devices(_ names: String...) -> Set<UUID> { Set(names.flatMap { devices[$0] ?? [] }) }
    }

    @Test func newFeedbackReachesOwnerAndMembersButNotTheActor() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        let id = try await world.db.send(try world.event(.newFeedback, actor: "alice"))
        #expect(Set(try await world.db.deliveries(id).keys) == world.devices("owner", "voter"))
        #expect(try await world.db.suppressions(id) == ["bob": "muted", "carol": "no_active_device"])
    }

    @Test func newCommentAddsTheSubmitterOnce() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        let id = try await world.db.send(try world.event(.newComment, actor: "owner"))
        #expect(Set(try await world.db.deliveries(id).keys) == world.devices("alice", "voter", "sub"))
        #expect(try await world.db.suppressions(id) == ["bob": "muted", "carol": "no_active_device"])
    }

    @Test func newVoteReachesOnlyTheSubmitter() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        let id = try await world.db.send(try world.event(.newVote, actor: "voter"))
        #expect(Set(try await world.db.deliveries(id).keys) == world.devices("sub"))
        #expect(try await world.db.suppressions(id).isEmpty)
    }

    @Test func statusChangeReachesSubmitterAndVotersWithTheirTexts() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        let id = try await world.db.send(try world.event(.statusChange, actor: "owner"))
        let deliveries = try await world.db.deliveries(id)
        #expect(Set(deliveries.keys) == world.devices("sub", "voter"))
        // The submitter is also named as a voter and still gets the submitter's text.
        #expect(world.devices("sub").allSatisfy { deliveries[$0] == "default" })
        #expect(world.devices("voter").allSatisfy { deliveries[$0] == "voter" })
    }

    @Test func overrideBeatsPersonalToggle() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        var off = PersonalPreferenceChanges()
        off.pushNewFeedback = false
        _ = try await world.db.preferences.updatePersonal(ExternalID("owner")!, off)
        _ = try await world.db.preferences.updatePersonal(ExternalID("voter")!, off)
        var on = ProjectOverrideChanges()
        on.newFeedback = .set(true)
        _ = try await world.db.preferences.updateProjectPreferences(ExternalID("owner")!, project: world.project, on)
        let id = try await world.db.send(try world.event(.newFeedback, actor: nil))
        #expect(Set(try await world.db.deliveries(id).keys) == world.devices("owner", "alice"))
        let suppressions = try await world.db.suppressions(id)
        #expect(suppressions["voter"] == "type_off")
        #expect(suppressions["bob"] == "muted")
    }

    @Test func expansionHappensOnceAndMarksTheNotification() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        let id = try await world.db.send(try world.event(.newFeedback, actor: nil))
        #expect(try await world.db.expander.expandDue().isEmpty)
        let status = try #require(try await world.db.notifications.status(id, in: .everyApp))
        #expect(status.state == "expanded")
        #expect(status.deliveries == ["pending": 4])
        #expect(status.suppressions == ["muted": 1, "no_active_device": 1])
    }

    @Test func scheduledNotificationWaitsForItsTime() async throws {
        let world = try await World.make()
        defer { world.db.client.shutdown() }
        var direct = DirectNotification()
        direct.userIDs = [ExternalID("alice")!]
        direct.alert = Alert(title: "Hi", body: "Later")
        direct.sendAt = Date().addingTimeInterval(3600)
        try direct.validate()
        let accepted = try await world.db.notifications.accept(NotificationDraft(direct: direct), apiKeyID: nil)
        #expect(try await world.db.expander.expandDue().isEmpty)
        #expect(try await world.db.notifications.status(accepted.id, in: .everyApp)?.state == "scheduled")
    }
}
