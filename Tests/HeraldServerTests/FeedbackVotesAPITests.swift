import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// Votes as data (seed 004 §5.2): `new_vote` records its voter, and a status change reaches every recorded voter.
@Suite(.sharesMachine, .timeLimit(.minutes(3))) struct FeedbackVotesAPITests {
    /// Users `v0`…`v<count-1>` (emails `v<i>@example.com`), one device each, and project `p` owned by `owner`.
    static func makeVoters(_ harness: APIHarness, count: Int) async throws {
        try await harness.client.execute(
            """
            INSERT INTO users (external_id, email, name)
            SELECT 'v' || i, 'v' || i || '@example.com', 'Voter ' || i FROM generate_series(0, \(count) - 1) AS i
            UNION ALL SELECT 'owner', 'owner@example.com', 'Owner'
            """)
        try await harness.client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            SELECT id, md5(external_id) || md5(external_id || '.'), 'iOS', 'sandbox' FROM users
            """)
        try await harness.client.execute(
            """
            INSERT INTO projects (external_id, name, owner_id)
            SELECT 'p', 'P', id FROM users WHERE external_id = 'owner'
            """)
    }

    /// The body of a vote by `v<index>`: named by user id, by email (in another case), or as the actor only.
    static func vote(_ index: Int, feedback: String = "f-1") -> String {
        let voter =
            switch index % 3 {
            case 0: #""voter":{"userId":"v\#(index)"}"#
            case 1: #""voter":{"email":"V\#(index)@Example.com"}"#
            default: #""actorId":"v\#(index)""#
            }
        return
            #"{"type":"new_vote","projectId":"p","voteCount":1,"feedback":{"id":"\#(feedback)","title":"Dark mode"},\#(voter)}"#
    }

    /// Posts `body` as an event with the send key and waits until it is expanded; returns its id.
    static func send(_ api: API, _ body: String) async throws -> UUID {
        let answer = try await api.call(
            .post, "/api/v1/events", headers: api.harness.bearer(api.harness.keys[.send]!), json: body)
        #expect(answer.status == .accepted, "\(answer.text)")
        let id = try #require(answer.json?["id"]?.stringValue)
        _ = try await api.harness.waitForExpansion(id)
        return UUID(uuidString: id)!
    }

    /// The voters (by external id) a notification has deliveries for, with the variant each got.
    static func reached(_ harness: APIHarness, _ id: UUID) async throws -> [String: String] {
        let rows = try await harness.client.query(
            """
            SELECT u.external_id, d.variant FROM deliveries d JOIN users u ON u.id = d.user_id
            WHERE d.notification_id = \(id)
            """
        ).decode((String, String).self)
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    static let statusChange =
        #"{"type":"status_change","projectId":"p","actorId":"owner","newStatus":"completed","#
        + #""feedback":{"id":"f-1","title":"Dark mode"}}"#

    @Test func oneStatusChangeReachesFiveThousandRecordedVoters() async throws {
        let harness = try await APIHarness.make(databaseSessions: 16)
        // A backend replaying its votes in bulk gets a key with a rate limit of its own (`--rate-limit`).
        let bulk = try await harness.services.keys.create(name: "bulk", scope: .send, rateLimit: 100_000).secret
        try await harness.run { api in
            let voters = 5_000
            try await Self.makeVoters(harness, count: voters)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<16 {
                    group.addTask {
                        for index in stride(from: lane, to: voters, by: 16) {
                            let answer = try await api.call(
                                .post, "/api/v1/events", headers: harness.bearer(bulk), json: Self.vote(index))
                            #expect(answer.status == .accepted, "\(answer.text)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Voting again changes nothing: one vote per person.
            _ = try await Self.send(api, Self.vote(0))
            #expect(try await harness.count("feedback_votes") == voters)
            let reached = try await Self.reached(harness, try await Self.send(api, Self.statusChange))
            #expect(reached.count == voters)
            #expect(Set(reached.keys) == Set((0..<voters).map { "v\($0)" }))
            #expect(reached.values.allSatisfy { $0 == "voter" })
        }
    }

    @Test func withdrawnVotesAndDeletedFeedbackNoLongerReachAnyone() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.makeVoters(harness, count: 4)
            for index in 0..<4 { _ = try await Self.send(api, Self.vote(index)) }
            _ = try await Self.send(api, Self.vote(3, feedback: "f-2"))
            let send = harness.bearer(harness.keys[.send]!)
            // v1 voted by email: withdrawing by user id finds that vote too.
            for voter in ["v0", "v1"] {
                let withdrawn = try await api.call(.delete, "/api/v1/feedback/f-1/votes/\(voter)", headers: send)
                #expect(withdrawn.status == .noContent)
            }
            let again = try await api.call(.delete, "/api/v1/feedback/f-1/votes/v0", headers: send)
            #expect(again.status == .notFound)
            #expect(again.field == "userId")
            // A voter named inline is reached beside the recorded ones, with the same text.
            let inline = Self.statusChange.replacingOccurrences(
                of: #""newStatus""#, with: #""voters":[{"userId":"v0"}],"newStatus""#)
            let reached = try await Self.reached(harness, try await Self.send(api, inline))
            #expect(reached == ["v0": "voter", "v2": "voter", "v3": "voter"])
            let deleted = try await api.call(.delete, "/api/v1/feedback/f-1", headers: send)
            #expect(deleted.status == .ok)
            #expect(deleted.json?["removedVotes"] == .int(2))
            #expect(try await Self.reached(harness, try await Self.send(api, Self.statusChange)).isEmpty)
            // Another feedback's votes stay.
            #expect(try await harness.count("feedback_votes") == 1)
        }
    }

    @Test func votesBelongToTheirProjectAndBadInputChangesNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.makeVoters(harness, count: 1)
            _ = try await Self.send(api, Self.vote(0))
            try await harness.client.execute(
                "INSERT INTO projects (external_id, name, owner_id) SELECT 'q', 'Q', owner_id FROM projects")
            let otherProject = Self.statusChange.replacingOccurrences(of: #""p""#, with: #""q""#)
            #expect(try await Self.reached(harness, try await Self.send(api, otherProject)).isEmpty)
            let send = harness.bearer(harness.keys[.send]!)
            let before = try await harness.count("feedback_votes")
            let voterOnStatus = try await api.call(
                .post, "/api/v1/events", headers: send,
                json: Self.statusChange.replacingOccurrences(
                    of: #""newStatus""#, with: #""voter":{"userId":"v0"},"newStatus""#))
            #expect(voterOnStatus.status == .unprocessableContent)
            #expect(voterOnStatus.field == "voter")
            let longID = String(repeating: "x", count: 257)
            let badID = try await api.call(.delete, "/api/v1/feedback/\(longID)", headers: send)
            #expect(badID.status == .unprocessableContent)
            #expect(badID.field == "feedbackId")
            let readOnly = try await api.call(
                .delete, "/api/v1/feedback/f-1", headers: harness.bearer(harness.keys[.read]!))
            #expect(readOnly.status == .forbidden)
            #expect(try await harness.count("feedback_votes") == before)
        }
    }
}
