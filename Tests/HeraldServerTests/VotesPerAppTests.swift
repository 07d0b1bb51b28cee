import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// Votes belong to the app that recorded them: a status change reaches the voters its own app recorded, and an
/// app's key removes only its own app's votes. Deleting a user deletes their votes, by id and by email address.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct VotesPerAppTests {
    /// Apps a and b, users `owner` (owning project p), bob and carol with a device in each app, and a send key for
    /// each app.
    static func world(_ api: API) async throws -> (keyA: HTTPFields, keyB: HTTPFields) {
        let harness = api.harness
        try await TenantIsolationTests.createApps(api)
        try await DeviceAPITests.setUp(api, users: ["owner", "bob", "carol"])
        #expect(
            try await api.call(
                .put, "/api/v1/projects/p", headers: harness.admin(), json: #"{"name":"P","ownerId":"owner"}"#
            ).status == .created)
        for user in ["bob", "carol"] {
            for app in ["a", "b"] {
                _ = try await LiveActivityOwnershipTests.device(api, of: user, app: app)
            }
        }
        let keys = APIKeyStore(client: harness.client)
        let keyA = try await keys.create(name: "a", scope: .send, app: ExternalID("a")!).secret
        let keyB = try await keys.create(name: "b", scope: .send, app: ExternalID("b")!).secret
        return (harness.bearer(keyA), harness.bearer(keyB))
    }

    static func vote(by user: String) -> String {
        #"{"type":"new_vote","projectId":"p","voteCount":1,"feedback":{"id":"f-1","title":"T"},"voter":{"userId":"\#(user)"}}"#
    }

    /// Posts the event with `key`, waits for its expansion and answers the users it reached.
    static func send(_ api: API, _ body: String, key: HTTPFields) async throws -> Set<String> {
        let answer = try await api.call(.post, "/api/v1/events", headers: key, json: body)
        #expect(answer.status == .accepted, "\(answer.text)")
        let id = try #require(answer.json?["id"]?.stringValue)
        _ = try await api.harness.waitForExpansion(id)
        return Set(try await FeedbackVotesAPITests.reached(api.harness, UUID(uuidString: id)!).keys)
    }

    @Test func aStatusChangeReachesOnlyTheVotersItsAppRecorded() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let (keyA, keyB) = try await Self.world(api)
            _ = try await Self.send(api, Self.vote(by: "bob"), key: keyA)
            _ = try await Self.send(api, Self.vote(by: "carol"), key: keyB)

            #expect(try await Self.send(api, FeedbackVotesAPITests.statusChange, key: keyA) == ["bob"])
            #expect(try await Self.send(api, FeedbackVotesAPITests.statusChange, key: keyB) == ["carol"])

            let withdrawn = try await api.call(.delete, "/api/v1/feedback/f-1/votes/carol", headers: keyA)
            #expect(withdrawn.status == .notFound, "app a's key does not find app b's vote")
            let deleted = try await api.call(.delete, "/api/v1/feedback/f-1", headers: keyA)
            #expect(deleted.json?["removedVotes"] == .int(1))
            #expect(try await Self.send(api, FeedbackVotesAPITests.statusChange, key: keyB) == ["carol"])
        }
    }

    @Test func deletingAUserDeletesTheirVotesAndEmail() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await FeedbackVotesAPITests.makeVoters(harness, count: 2)
            let send = harness.bearer(harness.keys[.send]!)
            // v0 voted by id and, on another feedback, by email address; v1 voted too.
            for body in [
                FeedbackVotesAPITests.vote(0), FeedbackVotesAPITests.vote(1),
                #"{"type":"new_vote","projectId":"p","voteCount":1,"feedback":{"id":"f-2","title":"T"},"voter":{"email":"V0@example.com"}}"#,
            ] {
                #expect(try await api.call(.post, "/api/v1/events", headers: send, json: body).status == .accepted)
            }
            #expect(try await harness.count("feedback_votes") == 3)

            let deleted = try await api.call(.delete, "/api/v1/users/v0", headers: harness.admin())
            #expect(deleted.status == .noContent)
            let left = try await harness.client.query(
                "SELECT coalesce(voter_user_id, voter_email) FROM feedback_votes"
            ).decode(String.self)
            #expect(left == ["v1@example.com"])
            let traces = try await harness.client.query(
                """
                SELECT (SELECT count(*) FROM users WHERE lower(email) = 'v0@example.com')
                     + (SELECT count(*) FROM device_tokens d WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = d.user_id))
                """
            ).scalar(Int.self)
            #expect(traces == 0, "no row keeps the user's email address or devices")
        }
    }
}
