import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct EventsAPITests {
    /// owner (2 devices), members alice, bob (muted), carol (no device), voter; outsider sub (1 active, 1 removed).
    struct World {
        let api: API
        var devices: [String: Set<String>] = [:]

        static func make(_ api: API) async throws -> World {
            var world = World(api: api)
            let admin = api.harness.admin()
            try await DeviceAPITests.setUp(api, users: ["owner", "alice", "bob", "carol", "sub", "voter"])
            _ = try await api.call(.put, "/api/v1/projects/p", headers: admin, json: #"{"name":"P","ownerId":"owner"}"#)
            for member in ["alice", "bob", "carol", "voter"] {
                _ = try await api.call(.put, "/api/v1/projects/p/members/\(member)", headers: admin)
            }
            for (name, count) in [("owner", 2), ("alice", 1), ("bob", 1), ("sub", 2), ("voter", 1)] {
                for _ in 0..<count {
                    let answer = try await api.call(
                        .post, "/api/v1/devices/register", headers: try api.harness.user(name),
                        json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
                    world.devices[name, default: []].insert(answer.json!["id"]!.stringValue!)
                }
            }
            let stale = world.devices["sub"]!.first!
            world.devices["sub"]!.remove(stale)
            _ = try await api.call(.delete, "/api/v1/devices/\(stale)", headers: try api.harness.user("sub"))
            _ = try await api.call(
                .patch, "/api/v1/projects/p/notification-preferences", headers: try api.harness.user("bob"),
                json: #"{"push":{"muted":true}}"#)
            return world
        }

        func expected(_ names: String...) -> Set<String> { names.reduce(into: []) { $0.formUnion(devices[$1] ?? []) } }

        /// Posts the event, waits for its expansion and returns (delivery device ids → variant, suppressions).
        func send(_ json: String) async throws -> (
            id: String, deliveries: [String: String], suppressed: [String: String]
        ) {
            let answer = try await api.call(
                .post, "/api/v1/events", headers: api.harness.bearer(api.harness.keys[.send]!), json: json)
            #expect(answer.status == .accepted)
            let id = try #require(answer.json?["id"]?.stringValue)
            _ = try await api.harness.waitForExpansion(id)
            let uuid = UUID(uuidString: id)!
            let rows = try await api.harness.client.query(
                "SELECT device_token_id::text, variant FROM deliveries WHERE notification_id = \(uuid)"
            ).decode((String, String).self)
            let suppressed = try await api.harness.client.query(
                """
                SELECT u.external_id, s.reason FROM notification_suppressions s JOIN users u ON u.id = s.user_id
                WHERE s.notification_id = \(uuid)
                """
            ).decode((String, String).self)
            return (
                id, Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) }),
                Dictionary(uniqueKeysWithValues: suppressed.map { ($0.0, $0.1) })
            )
        }

        func payload(_ id: String, variant: String = "default") async throws -> JSONValue {
            let json = try await api.harness.client.query(
                "SELECT content -> 'payloads' -> \(variant) FROM notifications WHERE id = \(UUID(uuidString: id)!)"
            ).scalar(PostgresJSON.self)
            return try json.decode(JSONValue.self)
        }
    }

    static let people =
        #""submitter":{"email":"SUB@example.com"},"#
        + #""voters":[{"userId":"voter"},{"email":"sub@example.com"},{"email":"nobody@example.com"}]"#

    @Test func newFeedback() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await World.make(api)
            let result = try await world.send(
                #"{"type":"new_feedback","projectId":"p","actorId":"alice","feedback":{"id":"f-1","#
                    + #""title":"Dark mode"},\#(Self.people)}"#
            )
            #expect(Set(result.deliveries.keys) == world.expected("owner", "voter"))
            #expect(result.suppressed == ["bob": "muted", "carol": "no_active_device"])
            let payload = try await world.payload(result.id)
            #expect(
                payload["aps"]?["alert"] == .object(["title": .string("New Feedback"), "body": .string("Dark mode")]))
            #expect(payload["aps"]?["badge"] == .int(1))
            #expect(payload["aps"]?["sound"] == .string("default"))
            #expect(payload["aps"]?["mutable-content"] == .int(1))
            #expect(payload["actionUrl"] == .string("feedbackkit://feedback/f-1"))
            #expect(payload["projectId"] == .string("p"))
            #expect(payload["type"] == .string("new_feedback"))
        }
    }

    @Test func newComment() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await World.make(api)
            let result = try await world.send(
                #"{"type":"new_comment","projectId":"p","actorId":"owner","commentId":"c-7","#
                    + #""feedback":{"id":"f-1","title":"Dark mode"},\#(Self.people)}"#
            )
            #expect(Set(result.deliveries.keys) == world.expected("alice", "voter", "sub"))
            #expect(result.suppressed == ["bob": "muted", "carol": "no_active_device"])
            let payload = try await world.payload(result.id)
            #expect(payload["aps"]?["alert"]?["body"] == .string("Comment on: Dark mode"))
            #expect(payload["commentId"] == .string("c-7"))
            #expect(payload["actionUrl"] == .string("feedbackkit://feedback/f-1/comments"))
        }
    }

    @Test func newVote() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await World.make(api)
            let result = try await world.send(
                #"{"type":"new_vote","projectId":"p","actorId":"voter","voteCount":5,"feedback":{"id":"f-1","#
                    + #""title":"Dark mode"},\#(Self.people)}"#
            )
            #expect(Set(result.deliveries.keys) == world.expected("sub"))
            let payload = try await world.payload(result.id)
            #expect(payload["aps"]?["alert"]?["body"] == .string("Dark mode now has 5 votes"))
            #expect(payload["aps"]?["badge"] == .int(5))
            // The submitter voting on their own feedback hears nothing.
            let own = try await world.send(
                #"{"type":"new_vote","projectId":"p","actorId":"sub","voteCount":1,"feedback":{"id":"f-1","#
                    + #""title":"Dark mode"},\#(Self.people)}"#
            )
            #expect(own.deliveries.isEmpty)
        }
    }

    @Test func statusChange() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await World.make(api)
            // voter turns status changes off personally but on for this project: the override wins.
            _ = try await api.call(
                .patch, "/api/v1/auth/notifications", headers: try harness.user("voter"),
                json: #"{"pushNotifyStatusChanges":false}"#)
            _ = try await api.call(
                .patch, "/api/v1/projects/p/notification-preferences", headers: try harness.user("voter"),
                json: #"{"push":{"statusChanges":true}}"#)
            let result = try await world.send(
                #"{"type":"status_change","projectId":"p","actorId":"owner","oldStatus":"pending","#
                    + #""newStatus":"in_progress","badge":3,"#
                    + #""feedback":{"id":"f-1","title":"Dark mode"},\#(Self.people)}"#
            )
            #expect(Set(result.deliveries.keys) == world.expected("sub", "voter"))
            #expect(world.expected("sub").allSatisfy { result.deliveries[$0] == "default" })
            #expect(world.expected("voter").allSatisfy { result.deliveries[$0] == "voter" })
            let submitter = try await world.payload(result.id)
            #expect(submitter["aps"]?["alert"]?["body"] == .string("Dark mode is now In Progress"))
            #expect(submitter["aps"]?["alert"]?["title"] == .string("Status Updated"))
            #expect(submitter["aps"]?["badge"] == .int(3))
            let voter = try await world.payload(result.id, variant: "voter")
            #expect(voter["aps"]?["alert"]?["body"] == .string("Feedback you voted on: In Progress"))
            // Turning the override off silences the voter, with the reason recorded.
            _ = try await api.call(
                .patch, "/api/v1/projects/p/notification-preferences", headers: try harness.user("voter"),
                json: #"{"push":{"statusChanges":false}}"#)
            let again = try await world.send(
                #"{"type":"status_change","projectId":"p","newStatus":"completed","feedback":{"id":"f-1","#
                    + #""title":"Dark mode"},\#(Self.people)}"#
            )
            #expect(Set(again.deliveries.keys) == world.expected("sub"))
            #expect(again.suppressed == ["voter": "override_off"])
        }
    }

    @Test func idempotentRetriesCreateNothingNew() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await World.make(api)
            var headers = harness.bearer(harness.keys[.send]!)
            headers[HTTPField.Name("Idempotency-Key")!] = "event-42"
            let body = #"{"type":"new_feedback","projectId":"p","feedback":{"id":"f-1","title":"Dark mode"}}"#
            let first = try await api.call(.post, "/api/v1/events", headers: headers, json: body)
            let second = try await api.call(.post, "/api/v1/events", headers: headers, json: body)
            #expect(first.status == .accepted)
            #expect(second.status == .accepted)
            #expect(first.text == second.text)
            #expect(second.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let changed = try await api.call(
                .post, "/api/v1/events", headers: headers, json: body.replacingOccurrences(of: "Dark", with: "Light"))
            #expect(changed.status == .conflict)
            // Keys are per API key: the admin key may reuse the name.
            var adminHeaders = harness.admin()
            adminHeaders[HTTPField.Name("Idempotency-Key")!] = "event-42"
            let other = try await api.call(.post, "/api/v1/events", headers: adminHeaders, json: body)
            #expect(other.status == .accepted)
            #expect(other.text != first.text)
            #expect(try await harness.count("notifications") == 2)
            let id = try #require(first.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(id)
            let status = try await api.call(
                .get, "/api/v1/notifications/\(id)", headers: harness.bearer(harness.keys[.read]!))
            #expect(status.status == .ok)
            #expect(status.json?["state"] == .string("expanded"))
            #expect(status.json?["deliveries"]?["total"] == .int(world.expected("owner", "alice", "voter").count))
            #expect(status.json?["suppressed"]?["byReason"]?["muted"] == .int(1))
        }
    }

    @Test func directSends() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await World.make(api)
            let send = harness.bearer(harness.keys[.send]!)
            let sub = world.devices["sub"]!.first!
            // Custom type: only the global toggle and the mute apply; named devices only get that device.
            _ = try await api.call(
                .patch, "/api/v1/auth/notifications", headers: try harness.user("carol"),
                json: #"{"pushNotificationsEnabled":false}"#)
            let answer = try await api.call(
                .post, "/api/v1/notifications", headers: send,
                json:
                    #"{"userIds":["alice","carol"],"deviceIds":["\#(sub)"],"type":"release","#
                    + #""alert":{"title":"1.2","body":"Out now"},"data":{"build":"42"},"collapseId":"rel"}"#
            )
            #expect(answer.status == .accepted)
            let id = try #require(answer.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(id)
            let rows = try await harness.client.query(
                "SELECT device_token_id::text FROM deliveries WHERE notification_id = \(UUID(uuidString: id)!)"
            ).decode(String.self)
            #expect(Set(rows) == world.expected("alice").union([sub]))
            let payload = try await world.payload(id)
            #expect(payload["build"] == .string("42"))
            #expect(payload["aps"]?["alert"]?["subtitle"] == nil)
            // A project audience with respectPreferences false reaches the muted member too.
            let loud = try await api.call(
                .post, "/api/v1/notifications", headers: send,
                json: #"{"projectId":"p","type":"new_feedback","respectPreferences":false,"badge":2}"#)
            let loudID = try #require(loud.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(loudID)
            let loudRows = try await harness.client.query(
                "SELECT device_token_id::text FROM deliveries WHERE notification_id = \(UUID(uuidString: loudID)!)"
            ).decode(String.self)
            #expect(Set(loudRows) == world.expected("owner", "alice", "bob", "voter"))
            // Scheduled sends wait.
            let later = try await api.call(
                .post, "/api/v1/notifications", headers: send,
                json: #"{"userIds":["alice"],"alert":{"body":"later"},"sendAt":"2099-01-01T00:00:00Z"}"#)
            let laterStatus = try await api.call(
                .get, "/api/v1/notifications/\(later.json!["id"]!.stringValue!)", headers: send)
            #expect(laterStatus.json?["state"] == .string("scheduled"))
        }
    }
}
