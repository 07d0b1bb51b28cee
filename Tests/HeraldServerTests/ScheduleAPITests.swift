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
            let states = try await harness.client.query(
                "SELECT state, last_reason FROM deliveries WHERE notification_id = \(UUID(uuidString: nowID)!)"
            ).decode((String, String?).self)
            #expect(states.map(\.0) == ["canceled"])
            #expect(states.map(\.1) == ["NotificationCanceled"])
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
