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

        static func email(
            id: String, thread: String, from: String, subject: String, category: String = "primary",
            received: String = "2026-11-20T23:29:00Z", folder: String = "inbox"
        ) -> String {
            """
            {"id": "\(id)", "threadId": "\(thread)", "accountId": "acct-1", "fromAddress": "\(from)",
             "fromName": "Sender", "subject": "\(subject)", "snippet": "Snippet of \(subject)",
             "dateReceived": "\(received)", "isRead": false, "isSpam": false,
             "aiCategory": "\(category)", "folderTypes": ["\(folder)"], "messageId": "<\(id)@example.com>"}
            """
        }

        /// A gateway with the mailbox owner's device registered, and a scratch folder for the notifier's files.
        struct Setup {
            let harness: EngineHarness
            let keyFile: String
            let gateway: HeraldServeDeliveryTests.Gateway
            let folder: URL
            let token: String

            static func start() async throws -> Setup {
                let harness = try await EngineHarness.start()
                let keyFile = EngineHarness.keyFile()
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-mail-\(UUID())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let gateway = try await HeraldServeDeliveryTests.startGateway(harness, keyFile: keyFile)
                let put = try await HeraldServeDeliveryTests.request(
                    "PUT", "\(gateway.base)/users/mailbox", key: gateway.key,
                    body: #"{"email":"me@example.com","name":"Me"}"#)
                #expect(put.0 == 201, "\(put.1)")
                let token = EngineHarness.token("d1", 7)
                let registered = try await HeraldServeDeliveryTests.request(
                    "POST", "\(gateway.base)/devices/register", key: gateway.key, user: "mailbox",
                    body: #"{"token":"\#(token)","platform":"iOS","environment":"sandbox"}"#)
                #expect(registered.0 == 201, "\(registered.1)")
                return Setup(harness: harness, keyFile: keyFile, gateway: gateway, folder: folder, token: token)
            }

            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

            func write(_ text: String, to name: String) throws {
                try text.write(toFile: path(name), atomically: true, encoding: .utf8)
            }

            /// The options every `mail-notifier` command takes.
            var common: [String] {
                [
                    "--mailbox", path("mailbox.json"), "--state", path("state.json"),
                    "--herald-url", String(gateway.base.dropLast("/api/v1".count)), "--api-key", gateway.key,
                    "--user", "mailbox",
                ]
            }

            func sync(now: String, environment: [String: String] = [:]) async throws -> ProgramOutcome {
                try await BuiltProgram.mailNotifier.run(
                    ["--emails", path("emails.json"), "--settings", path("settings.json"), "--now", now] + common,
                    environment: environment)
            }

            /// The pushes apns-mock received whose payload contains `text`.
            func pushes(containing text: String) -> [MockRecordedRequest] {
                harness.sandbox.recordedRequests.filter { String(decoding: $0.body, as: UTF8.self).contains(text) }
            }

            /// The badge of every badge push apns-mock received, in arrival order.
            var badges: [Int] {
                harness.sandbox.recordedRequests.compactMap { request in
                    let payload = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
                    return (payload?["aps"] as? [String: Any])?["badge"] as? Int
                }
            }

            /// Waits until the badges received are `expected`, or 30 seconds.
            func waitForBadges(_ expected: [Int]) async throws -> [Int] {
                let deadline = ContinuousClock.now + .seconds(30)
                while badges.count < expected.count && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
                return badges
            }

            /// Waits until `count` pushes contain `text`, or 30 seconds.
            func waitForPushes(containing text: String, count: Int = 1) async throws -> [MockRecordedRequest] {
                let deadline = ContinuousClock.now + .seconds(30)
                while pushes(containing: text).count < count && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
                return pushes(containing: text)
            }

            func stop() async throws {
                #expect(await gateway.server.stop() == 0, "\(gateway.server.output)")
                try await harness.stop()
                try? FileManager.default.removeItem(atPath: keyFile)
                try? FileManager.default.removeItem(at: folder)
            }
        }

        @Test func vipGetsThroughPromotionsDoNotAndRepeatsPushOnce() async throws {
            let setup = try await Setup.start()
            defer { if setup.gateway.server.process.isRunning { setup.gateway.server.process.terminate() } }
            let vip = Self.email(
                id: "vip-1", thread: "T-muted", from: "boss@example.com", subject: "Board meeting moved")
            let promo = Self.email(
                id: "promo-1", thread: "T-sale", from: "deals@shop.example", subject: "Half price sale",
                category: "Promotions")
            try "[\(vip), \(promo)]".write(toFile: setup.path("emails.json"), atomically: true, encoding: .utf8)
            try setup.write(Self.settings, to: "settings.json")
            try setup.write(#"{"emails": []}"#, to: "mailbox.json")
            // Not the first launch: an earlier run left its state.
            try setup.write(#"{"delivered": []}"#, to: "state.json")

            let first = try await setup.sync(now: "2026-11-20T23:30:00Z")
            #expect(first.status == 0, "\(first.output)")
            #expect(first.output.contains(#"{"decision":"notified","emailId":"vip-1","reason":"vip"}"#))
            #expect(first.output.contains(#"{"decision":"suppressed","emailId":"promo-1","reason":"category"}"#))
            #expect(try await setup.waitForPushes(containing: "Board meeting moved").count == 1)

            let second = try await setup.sync(now: "2026-11-20T23:30:00Z")
            #expect(second.status == 0, "\(second.output)")
            #expect(second.output.contains(#""reason":"duplicate""#))
            try await Task.sleep(for: .seconds(2))
            #expect(setup.pushes(containing: "Board meeting moved").count == 1)
            #expect(setup.pushes(containing: "Half price sale").isEmpty)
            #expect(setup.harness.sandbox.recordedRequests.allSatisfy { $0.deviceToken == setup.token })
            try await setup.stop()
        }

        /// docs/mail-notifier.md's round: first launch, new mail → banner, badge only on change, respond → the
        /// banner is withdrawn by the collapse id it was sent with and the badge drops.
        @Test func firstLaunchBannerBadgeAndRespondWithdrawTheBannerByItsCollapseId() async throws {
            let setup = try await Setup.start()
            defer { if setup.gateway.server.process.isRunning { setup.gateway.server.process.terminate() } }
            let earlier = Self.email(
                id: "old-1", thread: "T-old", from: "ann@example.com", subject: "Old news",
                received: "2026-11-19T08:00:00Z")
            try setup.write(#"{"emails": [\#(earlier)]}"#, to: "mailbox.json")
            try setup.write(#"{"mutedThreadIds": ["T-old", "T-gone"], "timeZone": "UTC"}"#, to: "settings.json")
            let launchMail = Self.email(
                id: "launch-1", thread: "T-launch", from: "bob@example.com", subject: "Synced at launch",
                received: "2026-11-20T11:58:00Z")
            try setup.write("[\(launchMail)]", to: "emails.json")

            // No state file: the first launch. Nothing notifies, the badge (2 unread in the inbox) is sent,
            // and the muted thread with no email left is unmuted.
            let launch = try await setup.sync(now: "2026-11-20T12:00:00Z")
            #expect(launch.status == 0, "\(launch.output)")
            #expect(launch.output.contains(#"{"decision":"suppressed","emailId":"launch-1","reason":"first-launch"}"#))
            #expect(try await setup.waitForBadges([2]) == [2], "\(setup.gateway.server.output)")
            #expect(setup.pushes(containing: "Synced at launch").isEmpty)
            let settings = try String(contentsOfFile: setup.path("settings.json"), encoding: .utf8)
            #expect(settings.contains("T-old") && !settings.contains("T-gone"), "\(settings)")

            // New mail, with a stable 64-digit id: its banner goes out, the badge becomes 3.
            let emailId = String(repeating: "ab", count: 32)
            let newMail = Self.email(
                id: emailId, thread: "T-lunch", from: "carol@example.com", subject: "Lunch on Friday",
                received: "2026-11-20T12:09:00Z")
            try setup.write("[\(newMail)]", to: "emails.json")
            let mail = try await setup.sync(now: "2026-11-20T12:10:00Z")
            #expect(mail.status == 0, "\(mail.output)")
            #expect(mail.output.contains(#""emailId":"\#(emailId)","reason":"passed""#), "\(mail.output)")
            let banner = try #require(try await setup.waitForPushes(containing: "Lunch on Friday").first)
            let collapseId = try #require(banner.header("apns-collapse-id"))
            #expect(collapseId.hasPrefix("email-") && collapseId != "email-\(emailId)" && collapseId.utf8.count <= 64)
            #expect(try await setup.waitForBadges([2, 3]) == [2, 3])

            // The same batch again: a duplicate, and the unchanged badge is not sent again.
            let again = try await setup.sync(now: "2026-11-20T12:11:00Z")
            #expect(again.output.contains(#""reason":"duplicate""#), "\(again.output)")
            try await Task.sleep(for: .seconds(2))
            #expect(setup.badges == [2, 3])
            #expect(setup.pushes(containing: "Lunch on Friday").count == 1)

            // The user marks it read from the banner.
            let respond = try await BuiltProgram.mailNotifier.run(
                ["respond", "--email-id", emailId, "--action", "MARK_READ"] + setup.common)
            #expect(respond.status == 0, "\(respond.output)")
            let mailbox = try String(contentsOfFile: setup.path("mailbox.json"), encoding: .utf8)
            let stored = try #require(
                try JSONSerialization.jsonObject(with: Data(mailbox.utf8)) as? [String: [[String: Any]]])
            #expect(stored["emails"]?.first { $0["id"] as? String == emailId }?["isRead"] as? Bool == true)
            let removal = try #require(try await setup.waitForPushes(containing: "removeNotificationIds").first)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(removal.body)) as? [String: Any])
            #expect(payload["removeNotificationIds"] as? [String] == [collapseId], "\(payload)")
            #expect(removal.header("apns-push-type") == "background")
            #expect(try await setup.waitForBadges([2, 3, 2]) == [2, 3, 2])
            try await Task.sleep(for: .seconds(2))
            #expect(setup.badges == [2, 3, 2], "one badge per change, nothing more")
            try await setup.stop()
        }

        /// The whole loop: banners go out through Herald; the app reports the user's Mark Read, Archive, Delete and
        /// Reply on them with the id each payload carries; the next sync applies all four to the mailbox, withdraws
        /// the banners and lowers the badge through Herald. A crash after applying and before saving the state
        /// (the state file as it was before the run) applies nothing twice.
        @Test func tapsReportedToHeraldReachTheMailboxOnce() async throws {
            let setup = try await Setup.start()
            defer { if setup.gateway.server.process.isRunning { setup.gateway.server.process.terminate() } }
            try setup.write(#"{"timeZone": "UTC"}"#, to: "settings.json")
            try setup.write(#"{"emails": []}"#, to: "mailbox.json")
            try setup.write(#"{"delivered": []}"#, to: "state.json")
            let actions = ["MARK_READ_ACTION", "ARCHIVE_ACTION", "DELETE_ACTION", "REPLY_ACTION"]
            let mails = actions.indices.map { index in
                Self.email(
                    id: "e-\(index)", thread: "T-\(index)", from: "carol@example.com", subject: "Subject \(index)",
                    received: "2026-11-20T12:0\(6 + index):00Z")
            }
            try setup.write("[\(mails.joined(separator: ","))]", to: "emails.json")
            let first = try await setup.sync(now: "2026-11-20T12:10:00Z")
            #expect(first.status == 0, "\(first.output)")
            #expect(try await setup.waitForBadges([4]) == [4])

            // The app: its device's id, then one tap on each banner, by the id its payload carries.
            let devices = try await HeraldServeDeliveryTests.request(
                "GET", "\(setup.gateway.base)/devices", key: setup.gateway.key, user: "mailbox")
            let listed = try JSONSerialization.jsonObject(with: Data(devices.1.utf8)) as? [String: [[String: Any]]]
            let device = try #require(listed?["devices"]?.first?["id"] as? String, "\(devices.1)")
            for (index, action) in actions.enumerated() {
                let banner = try #require(try await setup.waitForPushes(containing: "Subject \(index)").first)
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(banner.body)) as? [String: Any])
                let notification = try #require(payload["heraldNotificationId"] as? String, "\(payload)")
                let text = action == "REPLY_ACTION" ? #","text":"See you there""# : ""
                let reported = try await HeraldServeDeliveryTests.request(
                    "POST", "\(setup.gateway.base)/notifications/\(notification)/interactions",
                    key: setup.gateway.key, user: "mailbox",
                    body: #"{"deviceId":"\#(device)","action":"\#(action)"\#(text)}"#)
                #expect(reported.0 == 201, "\(reported.1)")
            }

            try setup.write("[]", to: "emails.json")
            let stateBefore = try String(contentsOfFile: setup.path("state.json"), encoding: .utf8)
            let applied = try await setup.sync(now: "2026-11-20T12:20:00Z")
            #expect(applied.status == 0, "\(applied.output)")
            let mailbox = try String(contentsOfFile: setup.path("mailbox.json"), encoding: .utf8)
            let stored = try #require(try JSONSerialization.jsonObject(with: Data(mailbox.utf8)) as? [String: Any])
            let emails = stored["emails"] as? [[String: Any]] ?? []
            func email(_ id: String) -> [String: Any]? { emails.first { $0["id"] as? String == id } }
            #expect(email("e-0")?["isRead"] as? Bool == true, "\(mailbox)")
            #expect(email("e-1")?["folderTypes"] as? [String] == ["archive"], "\(mailbox)")
            #expect(email("e-2")?["folderTypes"] as? [String] == ["trash"], "\(mailbox)")
            let outbox = stored["outbox"] as? [[String: Any]] ?? []
            #expect(outbox.count == 1, "\(mailbox)")
            #expect((outbox.first?["draft"] as? [String: Any])?["bodyPlain"] as? String == "See you there")
            #expect(outbox.first?["state"] as? String == "send-now")
            #expect(try await setup.waitForPushes(containing: "removeNotificationIds", count: 4).count == 4)
            // Each action lowers the badge by the email it took out of the unread inbox; the reply leaves e-3 unread.
            // The three badges are sent within milliseconds, so the engine may deliver them in any order.
            #expect(try await setup.waitForBadges([4, 3, 2, 1]).sorted() == [1, 2, 3, 4], "\(setup.badges)")

            // A crash after the mailbox was written and before the state was: nothing is applied a second time.
            try setup.write(stateBefore, to: "state.json")
            let again = try await setup.sync(now: "2026-11-20T12:30:00Z")
            #expect(again.status == 0, "\(again.output)")
            let unchanged = try String(contentsOfFile: setup.path("mailbox.json"), encoding: .utf8)
            #expect(unchanged == mailbox, "applied once")
            try await Task.sleep(for: .seconds(2))
            // The restored state remembers the badge as 4, so the unchanged count, 1, is sent once more.
            #expect(setup.badges.sorted() == [1, 1, 2, 3, 4], "\(setup.badges)")
            try await setup.stop()
        }

        @Test func respondRefusesBadInputNamingTheFlag() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-mail-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let common = [
                "--mailbox", folder.appendingPathComponent("mailbox.json").path, "--state",
                folder.appendingPathComponent("state.json").path, "--herald-url", "http://127.0.0.1:9",
                "--api-key", "k", "--user", "mailbox",
            ]
            let noText = try await BuiltProgram.mailNotifier.run(
                ["respond", "--email-id", "e", "--action", "REPLY"] + common)
            #expect(noText.status != 0 && noText.output.contains("--text"), "\(noText.output)")
            let unknown = try await BuiltProgram.mailNotifier.run(
                ["respond", "--email-id", "e", "--action", "SNOOZE"] + common)
            #expect(unknown.status != 0 && unknown.output.contains("MARK_READ"), "\(unknown.output)")
            let noMailbox = try await BuiltProgram.mailNotifier.run(
                ["respond", "--email-id", "e", "--action", "DELETE"] + common)
            #expect(noMailbox.status != 0 && noMailbox.output.contains("no mailbox file"), "\(noMailbox.output)")
        }
    }
}
