import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct NotificationDeliveriesAPITests {
    @Test func showsEachDeviceAndWhyOthersGotNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let token = DeviceAPITests.hexToken()
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(token)","platform":"iOS"}"#)
            let device = try #require(registered.json?["id"]?.stringValue)
            let send = harness.bearer(harness.keys[.send]!)
            let accepted = try await api.call(
                .post, "/api/v1/notifications", headers: send,
                json: #"{"userIds":["alice","bob"],"alert":{"body":"hello"}}"#)
            let id = try #require(accepted.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(id)
            // As the engine records it: a retry, then the final answer; the delivery leaves the outbox.
            try await harness.client.execute(
                """
                WITH finished AS (DELETE FROM deliveries WHERE notification_id = \(UUID(uuidString: id)!) RETURNING *)
                INSERT INTO push_notification_logs (
                    user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                    attempt, http_status, apns_reason, created_at)
                SELECT f.user_id, f.device_token_id, f.notification_id, f.id, f.notification_type, a.status,
                    f.environment, a.attempt, a.http_status, a.reason, now() + a.later
                FROM finished AS f CROSS JOIN (VALUES
                    ('retrying', 1, 503, 'ServiceUnavailable', interval '0'),
                    ('failed', 2, 400, 'DeviceTokenNotForTopic', interval '1 second')
                ) AS a (status, attempt, http_status, reason, later)
                """)

            let answer = try await api.call(
                .get, "/api/v1/notifications/\(id)/deliveries", headers: harness.bearer(harness.keys[.read]!))
            #expect(answer.status == .ok)
            #expect(answer.json?["state"] == .string("expanded"))
            guard case .array(let deliveries)? = answer.json?["deliveries"],
                case .array(let suppressed)? = answer.json?["suppressed"]
            else {
                Issue.record("no lists in \(answer.text)")
                return
            }
            #expect(deliveries.count == 1)
            #expect(deliveries.first?["deviceId"] == .string(device))
            #expect(deliveries.first?["userId"] == .string("alice"))
            #expect(deliveries.first?["state"] == .string("failed"))
            #expect(deliveries.first?["attempts"] == .int(2))
            #expect(deliveries.first?["lastReason"] == .string("DeviceTokenNotForTopic"))
            #expect(deliveries.first?["lastStatus"] == .int(400))
            let status = try await api.call(
                .get, "/api/v1/notifications/\(id)", headers: harness.bearer(harness.keys[.read]!))
            #expect(status.json?["deliveries"]?["byState"] == .object(["failed": .int(1)]))
            #expect(suppressed.count == 1)
            #expect(suppressed.first?["userId"] == .string("bob"))
            #expect(suppressed.first?["reason"] == .string("no_active_device"))
            #expect(!answer.text.lowercased().contains(token.lowercased()))

            let missing = try await api.call(.get, "/api/v1/notifications/\(UUID())/deliveries", headers: send)
            #expect(missing.status == .notFound)
            let bad = try await api.call(.get, "/api/v1/notifications/nope/deliveries", headers: send)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.field == "notificationId")
            let user = try await api.call(
                .get, "/api/v1/notifications/\(id)/deliveries", headers: try harness.user("alice"))
            #expect(user.status == .forbidden)
        }
    }

    /// A notification's lane is the rule's unless the request names one; it is stored on every delivery with the
    /// device's app (what the claim shares by), and shown by the notification, its deliveries and the log.
    @Test func theLaneIsChosenOrGivenAndShownEverywhere() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            _ = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            let send = harness.bearer(harness.keys[.send]!)
            let read = harness.bearer(harness.keys[.read]!)
            for (extra, lane) in [
                (#","interruptionLevel":"time-sensitive""#, "immediate"), ("", "bulk"),
                (#","interruptionLevel":"critical","lane":"bulk""#, "bulk"), (#","lane":"immediate""#, "immediate"),
            ] {
                let accepted = try await api.call(
                    .post, "/api/v1/notifications", headers: send,
                    json: #"{"userIds":["alice"],"alert":{"body":"hello"}\#(extra)}"#)
                let id = try #require(accepted.json?["id"]?.stringValue, "\(accepted.text)")
                _ = try await harness.waitForExpansion(id)
                let status = try await api.call(.get, "/api/v1/notifications/\(id)", headers: read)
                #expect(status.json?["lane"] == .string(lane), "\(extra): \(status.text)")
                let deliveries = try await api.call(.get, "/api/v1/notifications/\(id)/deliveries", headers: read)
                #expect(deliveries.json?["lane"] == .string(lane), "\(extra): \(deliveries.text)")
                let (stored, app) = try await harness.client.query(
                    """
                    SELECT d.lane, d.app_id IS NOT DISTINCT FROM t.app_id
                    FROM deliveries d JOIN device_tokens t ON t.id = d.device_token_id
                    WHERE d.notification_id = \(UUID(uuidString: id)!)
                    """
                ).first!.decode((String, Bool).self)
                #expect(stored == lane && app, "\(extra)")
                try await harness.client.execute(
                    """
                    WITH finished AS (DELETE FROM deliveries WHERE notification_id = \(UUID(uuidString: id)!) RETURNING *)
                    INSERT INTO push_notification_logs (
                        user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                        attempt)
                    SELECT user_id, device_token_id, notification_id, id, notification_type, 'sent', environment, 1
                    FROM finished
                    """)
                let logs = try await api.call(.get, "/api/v1/logs?notificationId=\(id)", headers: read)
                guard case .array(let items)? = logs.json?["items"] else {
                    Issue.record("no items in \(logs.text)")
                    continue
                }
                #expect(items.first?["lane"] == .string(lane), "\(extra): \(logs.text)")
            }
        }
    }
}
