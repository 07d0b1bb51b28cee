import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// Each class of Apple's answers leaves the delivery, the device and the log as issue 5 says.
    @Suite struct DeliveryEngineOutcomeTests {
        func single(
            _ harness: EngineHarness, token: String, environment: APNsEnvironment = .sandbox,
            registeredAt: Date = Date(timeIntervalSinceNow: -3600), content: NotificationMessage = .alert(body: "Hi"),
            expiresAt: Date? = nil
        ) async throws -> (device: UUID, delivery: UUID) {
            let user = try await harness.insertUser()
            let device = try await harness.insertDevice(
                user: user, token: token, environment: environment, registeredAt: registeredAt)
            let notification = try await harness.insertNotification(content, expiresAt: expiresAt)
            let delivery = try await harness.insertDelivery(
                notification: notification, user: user, device: device, environment: environment)
            return (device, delivery)
        }

        @Test func unregisteredDeactivatesOnlyWhenNewerThanTheRegistration() async throws {
            let harness = try await EngineHarness.start()
            let appleTime = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
            harness.sandbox.script(
                deviceTokenPrefix: "dead", .reject(status: 410, reason: "Unregistered", timestamp: appleTime))
            let stale = try await single(harness, token: EngineHarness.token("dead", 1))
            let renewed = try await single(harness, token: EngineHarness.token("dead", 2), registeredAt: Date())
            let done = try await harness.run(harness.makeEngine()) {
                let first = try await harness.delivery(stale.delivery).state
                let second = try await harness.delivery(renewed.delivery).state
                return first != "pending" && second != "pending"
            }
            #expect(done)
            #expect(try await harness.delivery(stale.delivery).state == "token_expired")
            let device = try await harness.device(stale.device)
            #expect(!device.active)
            #expect(device.reason == "unregistered")
            #expect(try await harness.logStatuses(of: stale.delivery) == ["token_expired"])
            // Registered after Apple's timestamp: the answer is stale and the device stays.
            #expect(try await harness.device(renewed.device).active)
            #expect(try await harness.delivery(renewed.delivery).state == "failed")
            try await harness.stop()
        }

        @Test func badDeviceTokenIsRetriedInTheOtherEnvironmentAndCorrected() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "bad0", .reject(status: 400, reason: "BadDeviceToken", timestamp: nil))
            harness.sandbox.script(
                deviceTokenPrefix: "bad1", .reject(status: 400, reason: "BadDeviceToken", timestamp: nil))
            harness.production.script(
                deviceTokenPrefix: "bad1", .reject(status: 400, reason: "BadDeviceToken", timestamp: nil))
            let movable = try await single(harness, token: EngineHarness.token("bad0"))
            let broken = try await single(harness, token: EngineHarness.token("bad1"))
            let done = try await harness.run(harness.makeEngine()) {
                let first = try await harness.delivery(movable.delivery).state
                let second = try await harness.delivery(broken.delivery).state
                return first == "sent" && second == "token_expired"
            }
            #expect(done)
            let moved = try await harness.device(movable.device)
            #expect(moved.active)
            #expect(moved.environment == "production")
            #expect(try await harness.logStatuses(of: movable.delivery) == ["retrying", "sent"])
            let dead = try await harness.device(broken.device)
            #expect(!dead.active)
            #expect(dead.reason == "bad_device_token")
            #expect(harness.production.recordedRequests.count == 2)
            try await harness.stop()
        }

        @Test func deviceTokenNotForTopicFailsAndKeepsTheDevice() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "70b1c", .reject(status: 400, reason: "DeviceTokenNotForTopic", timestamp: nil))
            let target = try await single(harness, token: EngineHarness.token("70b1c"))
            let done = try await harness.run(harness.makeEngine()) {
                try await harness.delivery(target.delivery).state == "failed"
            }
            #expect(done)
            #expect(try await harness.device(target.device).active)
            #expect(try await harness.delivery(target.delivery).reason == "DeviceTokenNotForTopic")
            try await harness.stop()
        }

        @Test func transientErrorsAreRetriedUpToTheLimit() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "500", .reject(status: 500, reason: "InternalServerError", timestamp: nil))
            harness.sandbox.script(
                deviceTokenPrefix: "429", .reject(status: 429, reason: "TooManyRequests", timestamp: nil))
            let unavailable = try await single(harness, token: EngineHarness.token("500"))
            let limited = try await single(harness, token: EngineHarness.token("429"))
            let done = try await harness.run(harness.makeEngine()) {
                let first = try await harness.delivery(unavailable.delivery).state
                let second = try await harness.delivery(limited.delivery).state
                return first == "failed" && second == "failed"
            }
            #expect(done)
            let final = try await harness.delivery(unavailable.delivery)
            #expect(final.attempts == 5)
            #expect(
                try await harness.logStatuses(of: unavailable.delivery) == [
                    "retrying", "retrying", "retrying", "retrying", "failed",
                ])
            #expect(try await harness.device(unavailable.device).active)
            try await harness.stop()
        }

        @Test func retriesStopAtTheExpiration() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "500", .reject(status: 500, reason: "InternalServerError", timestamp: nil))
            var configuration = EngineHarness.configuration()
            configuration.policy = DeliveryPolicy(
                maximumAttempts: 100, initialBackoff: .milliseconds(300), maximumBackoff: .seconds(1))
            let target = try await single(
                harness, token: EngineHarness.token("500"), expiresAt: Date(timeIntervalSinceNow: 2))
            let done = try await harness.run(harness.makeEngine(configuration)) {
                try await harness.delivery(target.delivery).state == "expired"
            }
            #expect(done)
            #expect(try await harness.logStatuses(of: target.delivery).last == "expired")
            try await harness.stop()
        }

        @Test func payloadTooLargeIsShortenedAndRetriedOnce() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "413", .reject(status: 413, reason: "PayloadTooLarge", timestamp: nil))
            let long = NotificationMessage.alert(title: "Long", body: String(repeating: "word ", count: 400))
            let target = try await single(harness, token: EngineHarness.token("413"), content: long)
            let done = try await harness.run(harness.makeEngine()) {
                try await harness.delivery(target.delivery).state == "failed"
            }
            #expect(done)
            let sizes = harness.sandbox.recordedRequests.map(\.body.count)
            #expect(sizes.count == 2)
            #expect(sizes[1] < sizes[0])
            #expect(try await harness.logStatuses(of: target.delivery) == ["retrying", "failed"])
            try await harness.stop()
        }

        /// A refused key pauses sending on the credential ladder: one probe per pause, no attempt spent, and
        /// delivery resumes by itself once Apple accepts a probe. The engine's clock is the test's, so the pauses
        /// are the real ones (1 then 2 minutes at most) and nothing waits for them.
        @Test func credentialRefusalBacksOffAndResumesWhenAppleAcceptsAProbe() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "403", .reject(status: 403, reason: "InvalidProviderToken", timestamp: nil))
            let target = try await single(harness, token: EngineHarness.token("403"))
            let clock = ManualClock()
            let engine = harness.makeEngine(now: { clock.now() })
            let runner = Task { await engine.run() }
            while !engine.isPaused { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .milliseconds(500))
            #expect(harness.sandbox.recordedRequests.count == 1, "within the first pause, nothing more")
            let paused = try await harness.delivery(target.delivery)
            #expect(paused.state == "pending" && paused.attempts == 0)
            #expect(engine.recorded.pausedKeys == 1)
            // The second probe (the first pause is 30 to 60 s) is refused too; the one after the second pause (60 to
            // 120 s) is accepted.
            clock.advance(by: 60)
            while harness.sandbox.recordedRequests.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
            while !engine.isPaused { try await Task.sleep(for: .milliseconds(20)) }
            harness.sandbox.script(deviceTokenPrefix: "403", .accept(apnsID: target.delivery.uuidString.lowercased()))
            try await Task.sleep(for: .milliseconds(300))
            #expect(harness.sandbox.recordedRequests.count == 2, "within the second pause, nothing more")
            clock.advance(by: 120)
            while try await harness.delivery(target.delivery).state != "sent" {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(harness.sandbox.recordedRequests.count == 3, "one request per pause, never a loop")
            #expect(!engine.isPaused)
            #expect(engine.recorded.pausedKeys == 0)
            #expect(try await harness.delivery(target.delivery).attempts == 1)
            engine.shutdownGracefully()
            await runner.value
            try await harness.stop()
        }

        @Test func credentialRefusalPausesTheKeyUntilResumed() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(
                deviceTokenPrefix: "403", .reject(status: 403, reason: "InvalidProviderToken", timestamp: nil))
            let target = try await single(harness, token: EngineHarness.token("403"))
            let engine = harness.makeEngine()
            let runner = Task { await engine.run() }
            while !engine.isPaused { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .seconds(1))
            // Paused: one request, the delivery back to pending with its attempt given back, no retry storm.
            #expect(harness.sandbox.recordedRequests.count == 1)
            let paused = try await harness.delivery(target.delivery)
            #expect(paused.state == "pending")
            #expect(paused.attempts == 0)
            #expect(engine.recorded.pausedKeys == 1)
            harness.sandbox.script(deviceTokenPrefix: "403", .accept(apnsID: target.delivery.uuidString.lowercased()))
            try await DeliveryEngine.requestResume(through: harness.client)
            while try await harness.delivery(target.delivery).state != "sent" {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!engine.isPaused)
            #expect(engine.recorded.pausedKeys == 0)
            engine.shutdownGracefully()
            await runner.value
            try await harness.stop()
        }

        @Test func burstGuardStopsMassDeactivation() async throws {
            let harness = try await EngineHarness.start()
            let appleTime = Int64(Date().timeIntervalSince1970 * 1000)
            harness.sandbox.script(
                deviceTokenPrefix: "ee", .reject(status: 410, reason: "Unregistered", timestamp: appleTime))
            let notification = try await harness.insertFanOut(count: 60, tokenPrefix: "ee")
            try await harness.client.execute("UPDATE device_tokens SET registered_at = now() - interval '1 day'")
            var configuration = EngineHarness.configuration()
            configuration.policy = DeliveryPolicy(
                maximumAttempts: 2, initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(100))
            let engine = harness.makeEngine(configuration)
            let done = try await harness.run(engine) {
                let states = try await harness.states(of: notification)
                return states["pending", default: 0] + states["sending", default: 0] == 0
            }
            #expect(done)
            let inactive = try await harness.client.query(
                "SELECT count(*) FROM device_tokens WHERE NOT is_active"
            ).scalar(Int.self)
            #expect(inactive == 19, "deactivation must stop once 20 of the recent answers would deactivate")
            let states = try await harness.states(of: notification)
            #expect(states["token_expired"] == 19)
            #expect(states["failed"] == 41)
            #expect(engine.recorded.withheldDeactivations >= 41)
            try await harness.stop()
        }
    }
}
