import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct ScheduleAPITests {
    static func scheduled(_ api: API, sendAt: String = "2099-01-01T00:00:00Z") async throws -> String {
        try await DeviceAPITests.setUp(api, users: ["alice"])
        let registered = try await api.call(
            .post, "/api/v1/devices/register", headers: try api.harness.user("alice"),
            json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
        #expect(registered.status == .created)
        let accepted = try await api.call(
            .post, "/api/v1/notifications", headers: api.harness.bearer(api.harness.keys[.send]!),
            json:
                #"{"userIds":["alice"],"alert":{"title":"Soon","body":"later"},"#
                + #""expiration":"2099-06-01T00:00:00Z","sendAt":"\#(sendAt)"}"#
        )
        return try #require(accepted.json?["id"]?.stringValue)
    }

    @Test func aScheduledPushIsMovedRewordedThenSentOnTime() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let id = try await Self.scheduled(api)
            let send = harness.bearer(harness.keys[.send]!)
            let reworded = try await api.call(
                .patch, "/api/v1/notifications/\(id)", headers: send, json: #"{"alert":{"body":"now sooner"}}"#)
            #expect(reworded.status == .ok)
            #expect(reworded.json?["state"] == .string("scheduled"))
            let content = try await harness.client.query(
                "SELECT content FROM notifications WHERE id = \(UUID(uuidString: id)!)"
            ).first!.decode(column: 0, as: PostgresJSON.self).decode(JSONValue.self)
            #expect(content["payloads"]?["default"]?["aps"]?["alert"] == .object(["body": .string("now sooner")]))

            let tooLate = try await api.call(
                .patch, "/api/v1/notifications/\(id)", headers: send, json: #"{"sendAt":"2099-07-01T00:00:00Z"}"#)
            #expect(tooLate.status == .conflict)
            #expect(tooLate.field == "sendAt")

            let soon = ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: 1))
            let moved = try await api.call(
                .patch, "/api/v1/notifications/\(id)", headers: send, json: #"{"sendAt":"\#(soon)"}"#)
            #expect(moved.status == .ok)
            let deliveries = try await harness.waitForExpansion(id)
            #expect(deliveries.values.reduce(0, +) == 1)

            let afterwards = try await api.call(
                .patch, "/api/v1/notifications/\(id)", headers: send, json: #"{"alert":{"body":"too late"}}"#)
            #expect(afterwards.status == .conflict)
            #expect(afterwards.field == "state")
        }
    }

    @Test func cancelingStopsWhatWasNotSent() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let send = harness.bearer(harness.keys[.send]!)
            let later = try await Self.scheduled(api)
            let canceled = try await api.call(.delete, "/api/v1/notifications/\(later)", headers: send)
            #expect(canceled.status == .ok)
            #expect(canceled.json?["previousState"] == .string("scheduled"))
            #expect(canceled.json?["canceledDeliveries"] == .int(0))
            let status = try await api.call(.get, "/api/v1/notifications/\(later)", headers: send)
            #expect(status.json?["state"] == .string("canceled"))
            #expect(try await harness.count("deliveries") == 0)

            let now = try await api.call(
                .post, "/api/v1/notifications", headers: send, json: #"{"userIds":["alice"],"alert":{"body":"hi"}}"#)
            let nowID = try #require(now.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(nowID)
            let stopped = try await api.call(.delete, "/api/v1/notifications/\(nowID)", headers: harness.admin())
            #expect(stopped.json?["previousState"] == .string("expanded"))
            #expect(stopped.json?["canceledDeliveries"] == .int(1))
            #expect(try await harness.count("deliveries") == 0, "a canceled delivery leaves the outbox")
            let logged = try await harness.client.query(
                """
                SELECT status, apns_reason, attempt FROM push_notification_logs
                WHERE notification_id = \(UUID(uuidString: nowID)!)
                """
            ).decode((String, String?, Int).self)
            #expect(logged.map(\.0) == ["canceled"], "its log row records it")
            #expect(logged.map(\.1) == ["NotificationCanceled"])
            #expect(logged.map(\.2) == [0])
            let counted = try await api.call(.get, "/api/v1/notifications/\(nowID)", headers: send)
            #expect(counted.json?["deliveries"]?["byState"] == .object(["canceled": .int(1)]))
            let again = try await api.call(.delete, "/api/v1/notifications/\(nowID)", headers: send)
            #expect(again.status == .ok)
            #expect(again.json?["canceledDeliveries"] == .int(0))

            let missing = try await api.call(.delete, "/api/v1/notifications/\(UUID())", headers: send)
            #expect(missing.status == .notFound)
            let read = try await api.call(
                .delete, "/api/v1/notifications/\(nowID)", headers: harness.bearer(harness.keys[.read]!))
            #expect(read.status == .forbidden)
            let empty = try await api.call(.patch, "/api/v1/notifications/\(later)", headers: send, json: "{}")
            #expect(empty.status == .unprocessableContent)
        }
    }
}

/// Schedules you can manage: tags on direct sends, the listing of what waits, and canceling a group.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct ScheduleGroupAPITests {
    /// Schedules a push for `user` at `sendAt` with `tags`; returns its id.
    static func schedule(_ api: API, user: String, sendAt: String, tags: [String]) async throws -> String {
        let tagList = tags.map { #""\#($0)""# }.joined(separator: ",")
        let accepted = try await api.call(
            .post, "/api/v1/notifications", headers: api.harness.bearer(api.harness.keys[.send]!),
            json: #"{"userIds":["\#(user)"],"alert":{"body":"Cycle done"},"sendAt":"\#(sendAt)","tags":[\#(tagList)]}"#)
        #expect(accepted.status == .accepted, "\(accepted.text)")
        return try #require(accepted.json?["id"]?.stringValue)
    }

    static func ids(_ answer: API.Answer) -> [String] {
        guard case .array(let items)? = answer.json?["items"] else { return [] }
        return items.compactMap { $0["id"]?.stringValue }
    }

    @Test func scheduledSendsAreListedByUserTagAndTimeAndPaged() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let first = try await Self.schedule(
                api, user: "alice", sendAt: "2099-01-01T08:00:00Z", tags: ["machine-3", "dryer"])
            let second = try await Self.schedule(
                api, user: "alice", sendAt: "2099-01-01T09:00:00Z", tags: ["machine-3", "machine-3"])
            let bobs = try await Self.schedule(api, user: "bob", sendAt: "2099-01-01T07:00:00Z", tags: ["machine-3"])
            let other = try await Self.schedule(api, user: "alice", sendAt: "2099-01-01T10:00:00Z", tags: ["machine-4"])
            let read = harness.bearer(harness.keys[.read]!)

            let all = try await api.call(.get, "/api/v1/notifications?state=scheduled", headers: read)
            #expect(all.status == .ok)
            #expect(Self.ids(all) == [bobs, first, second, other])
            let alicesMachine = try await api.call(
                .get, "/api/v1/notifications?userId=alice&tag=machine-3", headers: read)
            #expect(Self.ids(alicesMachine) == [first, second])
            guard case .array(let items)? = alicesMachine.json?["items"] else { throw CancellationError() }
            #expect(items.first?["tags"] == .array([.string("dryer"), .string("machine-3")]))
            #expect(items.last?["tags"] == .array([.string("machine-3")]))
            let beforeNine = try await api.call(
                .get, "/api/v1/notifications?sendBefore=2099-01-01T09:00:00Z", headers: read)
            #expect(Self.ids(beforeNine) == [bobs, first])

            var paged: [String] = []
            var cursor: String?
            repeat {
                let page = try await api.call(
                    .get, "/api/v1/notifications?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), headers: read)
                paged += Self.ids(page)
                cursor = page.json?["nextCursor"]?.stringValue
            } while cursor != nil
            #expect(paged == [bobs, first, second, other])

            for (query, field) in [
                ("state=expanded", "state"), ("tag=", "tag"), ("userId=a%20b", "userId"),
                ("sendBefore=tomorrow", "sendBefore"), ("limit=0", "limit"), ("cursor=x", "cursor"), ("who=me", "who"),
            ] {
                let bad = try await api.call(.get, "/api/v1/notifications?\(query)", headers: read)
                #expect(bad.status == .unprocessableContent, "\(query)")
                #expect(bad.field == field, "\(query)")
            }
        }
    }

    @Test func aGroupIsCanceledByTagAndUserAndAnswersHowMany() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let send = harness.bearer(harness.keys[.send]!)
            let first = try await Self.schedule(api, user: "alice", sendAt: "2099-01-01T08:00:00Z", tags: ["machine-3"])
            let second = try await Self.schedule(
                api, user: "alice", sendAt: "2099-01-01T09:00:00Z", tags: ["machine-3"])
            let bobs = try await Self.schedule(api, user: "bob", sendAt: "2099-01-01T07:00:00Z", tags: ["machine-3"])
            let other = try await Self.schedule(api, user: "alice", sendAt: "2099-01-01T10:00:00Z", tags: ["machine-4"])

            let before = try await harness.snapshot()
            let untagged = try await api.call(.delete, "/api/v1/notifications", headers: send)
            #expect(untagged.status == .unprocessableContent)
            #expect(untagged.field == "tag")
            let readKey = try await api.call(
                .delete, "/api/v1/notifications?tag=machine-3", headers: harness.bearer(harness.keys[.read]!))
            #expect(readKey.status == .forbidden)
            #expect(try await harness.snapshot() == before)

            let alices = try await api.call(.delete, "/api/v1/notifications?tag=machine-3&userId=alice", headers: send)
            #expect(alices.status == .ok)
            #expect(alices.json?["canceledNotifications"] == .int(2))
            #expect(alices.json?["canceledDeliveries"] == .int(0))
            for id in [first, second] {
                let status = try await api.call(.get, "/api/v1/notifications/\(id)", headers: send)
                #expect(status.json?["state"] == .string("canceled"))
            }
            let rest = try await api.call(.delete, "/api/v1/notifications?tag=machine-3", headers: send)
            #expect(rest.json?["canceledNotifications"] == .int(1))
            let bobsStatus = try await api.call(.get, "/api/v1/notifications/\(bobs)", headers: send)
            #expect(bobsStatus.json?["state"] == .string("canceled"))
            let again = try await api.call(.delete, "/api/v1/notifications?tag=machine-3", headers: send)
            #expect(again.json?["canceledNotifications"] == .int(0))
            let waiting = try await api.call(.get, "/api/v1/notifications", headers: send)
            #expect(Self.ids(waiting) == [other])
        }
    }
}
