import APNsMock
import Foundation
import Glibc
import HeraldTesting
import LocalServices
import Testing

extension Networked {
    /// `mail-notifier` against a running Herald whose engine delivers to apns-mock.
    @Suite struct MailNotifierEndToEndTests {
        static let settings = """
            {"vipContacts": ["Boss@Example.com"], "mutedThreadIds": ["T-muted"],
             "notifCategoryPreferences": {"Promotions": false}, "quietHoursEnabled": true,
             "quietHoursStart": 1320, "quietHoursEnd": 420, "timeZone": "UTC"}
            """

        static func email(id: String, thread: String, from: String, subject: String, category: String) -> String {
            """
            {"id": "\(id)", "threadId": "\(thread)", "accountId": "acct-1", "fromAddress": "\(from)",
             "fromName": "Sender", "subject": "\(subject)", "snippet": "Snippet of \(subject)",
             "dateReceived": "2026-11-20T23:29:00Z", "isRead": false, "isSpam": false,
             "aiCategory": "\(category)", "folderTypes": ["inbox"]}
            """
        }

        @Test func vipGetsThroughPromotionsDoNotAndRepeatsPushOnce() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-mail-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer {
                try? FileManager.default.removeItem(atPath: keyFile)
                try? FileManager.default.removeItem(at: folder)
            }
            let gateway = try await HeraldServeDeliveryTests.startGateway(harness, keyFile: keyFile)
            defer { if gateway.server.process.isRunning { gateway.server.process.terminate() } }
            let put = try await HeraldServeDeliveryTests.request(
                "PUT", "\(gateway.base)/users/mailbox", key: gateway.key,
                body: #"{"email":"me@example.com","name":"Me"}"#)
            #expect(put.0 == 201, "\(put.1)")
            let token = EngineHarness.token("d1", 7)
            let registered = try await HeraldServeDeliveryTests.request(
                "POST", "\(gateway.base)/devices/register", key: gateway.key, user: "mailbox",
                body: #"{"token":"\#(token)","platform":"iOS","environment":"sandbox"}"#)
            #expect(registered.0 == 201, "\(registered.1)")

            let vip = Self.email(
                id: "vip-1", thread: "T-muted", from: "boss@example.com", subject: "Board meeting moved",
                category: "primary")
            let promo = Self.email(
                id: "promo-1", thread: "T-sale", from: "deals@shop.example", subject: "Half price sale",
                category: "Promotions")
            try "[\(vip), \(promo)]".write(
                to: folder.appendingPathComponent("emails.json"), atomically: true, encoding: .utf8)
            try Self.settings.write(
                to: folder.appendingPathComponent("settings.json"), atomically: true, encoding: .utf8)
            let arguments = [
                "--emails", folder.appendingPathComponent("emails.json").path,
                "--settings", folder.appendingPathComponent("settings.json").path,
                "--state", folder.appendingPathComponent("state.json").path,
                "--herald-url", String(gateway.base.dropLast("/api/v1".count)), "--api-key", gateway.key,
                "--user", "mailbox", "--now", "2026-11-20T23:30:00Z",
            ]

            let first = try await BuiltProgram.mailNotifier.run(arguments)
            #expect(first.status == 0, "\(first.output)")
            #expect(first.output.contains(#""emailId":"vip-1""#) && first.output.contains(#""decision":"notified""#))
            #expect(
                first.output.contains(#""emailId":"promo-1""#) && first.output.contains(#""decision":"suppressed""#))

            func pushes(containing text: String) -> Int {
                harness.sandbox.recordedRequests.filter { String(decoding: $0.body, as: UTF8.self).contains(text) }
                    .count
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while pushes(containing: "Board meeting moved") == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(pushes(containing: "Board meeting moved") == 1, "\(gateway.server.output)")

            let second = try await BuiltProgram.mailNotifier.run(arguments)
            #expect(second.status == 0, "\(second.output)")
            #expect(second.output.contains(#""reason":"duplicate""#))
            try await Task.sleep(for: .seconds(2))
            #expect(pushes(containing: "Board meeting moved") == 1)
            #expect(pushes(containing: "Half price sale") == 0)
            #expect(harness.sandbox.recordedRequests.allSatisfy { $0.deviceToken == token })

            #expect(await gateway.server.stop() == 0, "\(gateway.server.output)")
            try await harness.stop()
        }
    }
}
