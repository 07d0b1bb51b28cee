import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct DeviceTestAPITests {
    @Test func aTestPushGoesToThatDeviceAlone() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "mallory"])
            var ids: [String] = []
            for _ in 0..<2 {
                let registered = try await api.call(
                    .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                    json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
                ids.append(try #require(registered.json?["id"]?.stringValue))
            }
            // Alice turned off every kind of push; a test she asks for still comes.
            let quiet = try await api.call(
                .patch, "/api/v1/auth/notifications", headers: try harness.user("alice"),
                json:
                    #"{"pushNotifyNewFeedback":false,"pushNotifyNewComments":false,"pushNotifyVotes":false,"#
                    + #""pushNotifyStatusChanges":false}"#)
            #expect(quiet.status == .ok)
            let answer = try await api.call(.post, "/api/v1/devices/\(ids[0])/test", headers: try harness.user("alice"))
            #expect(answer.status == .accepted)
            let id = try #require(answer.json?["id"]?.stringValue)
            let deliveries = try await harness.waitForExpansion(id)
            #expect(deliveries.values.reduce(0, +) == 1)
            let row = try #require(
                try await harness.client.query(
                    """
                    SELECT d.device_token_id, n.kind, n.type, n.content, n.expires_at
                    FROM deliveries d JOIN notifications n ON n.id = d.notification_id
                    WHERE n.id = \(UUID(uuidString: id)!)
                    """
                ).first)
            let (device, kind, type, content, expiresAt) = try row.decode(
                (UUID, String, String, PostgresJSON, Date?).self)
            #expect(device.uuidString.lowercased() == ids[0])
            #expect(kind == "direct")
            #expect(type == "test")
            let aps = try content.decode(JSONValue.self)["payloads"]?["default"]?["aps"]
            #expect(aps?["alert"]?["title"] == .string("Test Notification"))
            #expect(aps?["alert"]?["body"] == .string("Your notifications are working perfectly! 🎉"))
            #expect(expiresAt.map { $0.timeIntervalSinceNow <= 300 } == true)

            let byAdmin = try await api.call(
                .post, "/api/v1/devices/\(ids[1])/test", headers: harness.admin(actingFor: "alice"))
            #expect(byAdmin.status == .accepted)
            // Expanded before anything below, which the server's loop would otherwise do at any later moment: on a busy
            // machine after the snapshot that must see no change, writing its delivery or suppression there.
            _ = try await harness.waitForExpansion(try #require(byAdmin.json?["id"]?.stringValue))
            let notMine = try await api.call(
                .post, "/api/v1/devices/\(ids[0])/test", headers: try harness.user("mallory"))
            #expect(notMine.status == .notFound)
            let removed = try await api.call(.delete, "/api/v1/devices/\(ids[1])", headers: try harness.user("alice"))
            #expect(removed.status == .noContent)
            let inactive = try await api.call(
                .post, "/api/v1/devices/\(ids[1])/test", headers: try harness.user("alice"))
            #expect(inactive.status == .conflict)
            // With pushes off altogether (seed 002 FR-4 disables the button), a test is refused and nothing stored.
            _ = try await api.call(
                .patch, "/api/v1/auth/notifications", headers: try harness.user("alice"),
                json: #"{"pushNotificationsEnabled":false}"#)
            let before = try await harness.snapshot()
            let off = try await api.call(.post, "/api/v1/devices/\(ids[0])/test", headers: try harness.user("alice"))
            #expect(off.status == .conflict)
            #expect(off.field == "pushNotificationsEnabled")
            #expect(try await harness.snapshot() == before)
            let sendKey = try await api.call(
                .post, "/api/v1/devices/\(ids[0])/test", headers: harness.bearer(harness.keys[.send]!))
            #expect(sendKey.status == .forbidden)
        }
    }
}
