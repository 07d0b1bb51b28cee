import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// The right pushes, with the right headers and payload, reach the right server.
    @Suite struct DeliveryEngineSendTests {
        /// A token as long as registration allows (256 bytes) is sent whole; the mock, like Apple today, issues only
        /// 32-byte tokens and refuses it, which the engine handles as any BadDeviceToken.
        @Test func theLongestRegisteredTokenIsSentWhole() async throws {
            let harness = try await EngineHarness.start()
            let longest = String(repeating: "5a", count: 256)
            let user = try await harness.insertUser()
            let device = try await harness.insertDevice(user: user, token: longest)
            let notification = try await harness.insertNotification(.alert(title: "Herald", body: "Long"))
            _ = try await harness.insertDelivery(notification: notification, user: user, device: device)

            let done = try await harness.run(harness.makeEngine()) {
                harness.sandbox.recordedRequests.count + harness.production.recordedRequests.count >= 1
            }
            #expect(done)
            let record = try #require((harness.sandbox.recordedRequests + harness.production.recordedRequests).first)
            #expect(record.deviceToken == longest)
            #expect(record.verdict.status == 400)
            try await harness.stop()
        }

        /// Answers are recorded as they arrive, not when the whole batch is answered: with one push of a batch left
        /// unanswered, the others are already `sent` in the database, so a crash now would resend only that one.
        @Test func answersAreRecordedWhileASlowPushOfTheBatchIsStillOut() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(deviceTokenPrefix: "5710", .stall)
            let user = try await harness.insertUser()
            let notification = try await harness.insertNotification(.alert(body: "Some answered"))
            var quick: [UUID] = []
            for index in 1...3 {
                let device = try await harness.insertDevice(user: user, token: EngineHarness.token("ab\(index)"))
                quick.append(try await harness.insertDelivery(notification: notification, user: user, device: device))
            }
            let stalled = try await harness.insertDevice(user: user, token: EngineHarness.token("5710"))
            let slow = try await harness.insertDelivery(notification: notification, user: user, device: stalled)
            let engine = harness.makeEngine()
            let answered = quick
            let recorded = try await harness.run(engine, timeout: .seconds(10)) {
                var states: [String] = []
                for id in answered { states.append(try await harness.delivery(id).state) }
                return states.allSatisfy { $0 == "sent" }
            }
            #expect(recorded, "the three answered pushes were not recorded while the fourth was out")
            #expect(try await harness.delivery(slow).state == "pending", "the unanswered push is still claimed")
            try await harness.stop()
        }

        @Test func pushReachesTheMockWithHeadersTopicAndPayload() async throws {
            let harness = try await EngineHarness.start()
            let user = try await harness.insertUser(sound: false, badge: true)
            let device = try await harness.insertDevice(user: user, token: EngineHarness.token("ab"))
            let content = NotificationMessage(
                payload: Payload(
                    aps: APS(
                        alert: Alert(title: "New Feedback", body: "Dark mode please"), badge: 2, sound: .default,
                        threadID: "project-1", category: "FEEDBACK", mutableContent: true),
                    custom: ["type": .string("new_feedback"), "feedbackId": .string("f-42")]),
                priority: .powerConsidered, collapseID: CollapseID("feedback-f-42"))
            let notification = try await harness.insertNotification(content)
            let delivery = try await harness.insertDelivery(notification: notification, user: user, device: device)

            let engine = harness.makeEngine()
            let done = try await harness.run(engine) { try await harness.delivery(delivery).state == "sent" }
            #expect(done)

            let records = harness.sandbox.recordedRequests
            #expect(records.count == 1)
            #expect(harness.production.recordedRequests.isEmpty)
            let record = try #require(records.first)
            #expect(record.header("apns-id") == delivery.uuidString.lowercased())
            #expect(record.header("apns-topic") == EngineHarness.bundleID)
            #expect(record.header("apns-push-type") == "alert")
            #expect(record.header("apns-priority") == "5")
            #expect(record.header("apns-collapse-id") == "feedback-f-42")
            #expect(record.deviceToken == EngineHarness.token("ab"))
            let payload = try JSONDecoder().decode(Payload.self, from: Data(record.body))
            #expect(payload.aps.alert?.title == "New Feedback")
            #expect(payload.aps.alert?.body == "Dark mode please")
            #expect(payload.aps.badge == 2)
            #expect(payload.aps.sound == nil, "the user turned sounds off")
            #expect(payload.aps.threadID == "project-1")
            #expect(payload.aps.mutableContent == true)
            #expect(payload.custom["feedbackId"] == .string("f-42"))

            #expect(try await harness.device(device).lastUsed != nil)
            let log = try await harness.client.query(
                """
                SELECT status, apns_id, http_status, attempt, feedback_id, environment FROM push_notification_logs
                WHERE delivery_id = \(delivery)
                """
            ).decode((String, UUID, Int, Int, String?, String).self)
            #expect(log.count == 1)
            #expect(log.first?.0 == "sent")
            #expect(log.first?.1 == delivery)
            #expect(log.first?.2 == 200)
            #expect(log.first?.3 == 1)
            #expect(log.first?.4 == "f-42")
            #expect(engine.recorded.sent == 1)
            try await harness.stop()
        }

        @Test func sandboxAndProductionDevicesGoToTheirOwnServers() async throws {
            let harness = try await EngineHarness.start()
            let user = try await harness.insertUser()
            let notification = try await harness.insertNotification(.alert(body: "Both"))
            var sandboxDeliveries: Set<String> = []
            var productionDeliveries: Set<String> = []
            for index in 0..<5 {
                let sandboxDevice = try await harness.insertDevice(
                    user: user, token: EngineHarness.token("5a", index), environment: .sandbox)
                let productionDevice = try await harness.insertDevice(
                    user: user, token: EngineHarness.token("9b", index), environment: .production)
                sandboxDeliveries.insert(
                    try await harness.insertDelivery(
                        notification: notification, user: user, device: sandboxDevice, environment: .sandbox
                    ).uuidString.lowercased())
                productionDeliveries.insert(
                    try await harness.insertDelivery(
                        notification: notification, user: user, device: productionDevice, environment: .production
                    ).uuidString.lowercased())
            }
            let done = try await harness.run(harness.makeEngine()) {
                try await harness.states(of: notification) == ["sent": 10]
            }
            #expect(done)
            #expect(Set(harness.sandbox.recordedRequests.compactMap { $0.header("apns-id") }) == sandboxDeliveries)
            #expect(
                Set(harness.production.recordedRequests.compactMap { $0.header("apns-id") }) == productionDeliveries)
            try await harness.stop()
        }

        @Test func notifyWakesAnIdleEngineAtOnce() async throws {
            let harness = try await EngineHarness.start()
            var configuration = EngineHarness.configuration()
            configuration.pollInterval = .seconds(30)
            let engine = harness.makeEngine(configuration)
            let runner = Task { await engine.run() }
            try await Task.sleep(for: .seconds(1))
            let notification = try await harness.insertFanOut(count: 3, tokenPrefix: "cc")
            let inserted = ContinuousClock.now
            try await harness.client.query("SELECT pg_notify(\(HeraldChannel.deliveries), '')")
            while try await harness.states(of: notification) != ["sent": 3] {
                #expect(ContinuousClock.now - inserted < .seconds(10), "NOTIFY did not wake the engine")
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(ContinuousClock.now - inserted < .seconds(5))
            engine.shutdownGracefully()
            await runner.value
            try await harness.stop()
        }
    }
}
