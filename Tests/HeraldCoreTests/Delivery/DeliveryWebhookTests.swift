import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldCore
import HeraldTesting
import HeraldWebhook
import Logging
import Postgres
import Testing

extension Networked {
    @Suite struct DeliveryWebhookTests {
        @Test func webhookReceivesSignedDeactivations() async throws {
            let harness = try await EngineHarness.start()
            let listener = try await RecordingHTTPServer.start()
            let secret = "webhook-secret-\(UUID())"
            let webhook = DeliveryWebhook(
                configuration: .init(
                    url: listener.url("/herald-events"), secret: secret, flushInterval: .milliseconds(100)),
                logger: Logger(label: "test.webhook"))
            let appleTime = Int64(Date().timeIntervalSince1970 * 1000)
            harness.sandbox.script(
                deviceTokenPrefix: "e1", .reject(status: 410, reason: "Unregistered", timestamp: appleTime))
            harness.sandbox.script(
                deviceTokenPrefix: "e2", .reject(status: 400, reason: "DeviceTokenNotForTopic", timestamp: nil))
            let user = try await harness.insertUser("webhook-user")
            let dead = try await harness.insertDevice(
                user: user, token: EngineHarness.token("e1"), registeredAt: Date(timeIntervalSinceNow: -600))
            let wrongTopic = try await harness.insertDevice(user: user, token: EngineHarness.token("e2"))
            let notification = try await harness.insertNotification(.alert(body: "Hello"))
            _ = try await harness.insertDelivery(notification: notification, user: user, device: dead)
            let failed = try await harness.insertDelivery(notification: notification, user: user, device: wrongTopic)

            let engine = harness.makeEngine(webhook: webhook)
            let done = try await harness.run(engine) {
                let events = listener.requests.flatMap { request in
                    (try? JSONDecoder.iso8601.decode(WebhookBatch.self, from: request.body).events) ?? []
                }
                return events.count >= 2
            }
            #expect(done)
            var events: [WebhookEvent] = []
            for request in listener.requests {
                let digest = HMACSHA256.authenticationCode(for: request.body, key: Data(secret.utf8))
                #expect(
                    request.header("X-Herald-Signature") == "sha256="
                        + digest.map { String(format: "%02x", $0) }.joined())
                // What a receiver does: take t and v1 apart, refuse an old t, check v1 over "t." and the body.
                let parts = Dictionary(
                    uniqueKeysWithValues: try #require(request.header("Herald-Signature")).split(separator: ",").map {
                        let pair = $0.split(separator: "=", maxSplits: 1)
                        return (String(pair[0]), String(pair.last ?? ""))
                    })
                let timestamp = try #require(parts["t"].flatMap { Int($0) })
                #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 60)
                let signed = HMACSHA256.authenticationCode(
                    for: Data("\(timestamp).".utf8) + request.body, key: Data(secret.utf8))
                #expect(parts["v1"] == signed.map { String(format: "%02x", $0) }.joined())
                #expect(
                    request.header("Herald-Signature")
                        == DeliveryWebhook.signature(of: request.body, secret: secret, at: timestamp))
                events += try JSONDecoder.iso8601.decode(WebhookBatch.self, from: request.body).events
            }
            let deactivation = try #require(events.first { $0.type == .deviceDeactivated })
            #expect(deactivation.deviceId == dead)
            #expect(deactivation.userId == "webhook-user")
            #expect(deactivation.reason == "unregistered")
            let failure = try #require(events.first { $0.type == .deliveryFailed })
            #expect(failure.deliveryId == failed)
            #expect(failure.reason == "DeviceTokenNotForTopic")
            try await listener.stop()
            try await harness.stop()
        }

        /// A redirect could carry the signed events to another host: it is refused, and retried at the same URL.
        @Test func redirectsAreNotFollowed() async throws {
            let target = try await RecordingHTTPServer.start()
            let redirecting = try await RecordingHTTPServer.start(redirectingTo: target.url("/herald-events"))
            let webhook = DeliveryWebhook(
                configuration: .init(
                    url: redirecting.url("/herald-events"), secret: "s", flushInterval: .milliseconds(10),
                    maximumAttempts: 2,
                    initialBackoff: .milliseconds(50)),
                logger: Logger(label: "test.webhook"))
            let running = Task { await webhook.run() }
            webhook.enqueue([
                WebhookEvent(
                    type: .deliveryFailed, occurredAt: Date(), deviceId: UUID(), userId: "u", reason: "BadTopic",
                    deliveryId: UUID())
            ])
            let deadline = ContinuousClock.now + .seconds(10)
            while redirecting.requests.count < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(redirecting.requests.count == 2)
            #expect(webhook.pendingCount == 0)
            #expect(target.requests.isEmpty)
            running.cancel()
            await running.value
            try await redirecting.stop()
            try await target.stop()
        }

        @Test func anUnreachableWebhookNeverHoldsUpDelivery() async throws {
            let harness = try await EngineHarness.start()
            let webhook = DeliveryWebhook(
                configuration: .init(
                    url: URL(string: "http://127.0.0.1:9/unreachable")!, secret: "s", flushInterval: .milliseconds(10),
                    maximumAttempts: 10, initialBackoff: .seconds(5)),
                logger: Logger(label: "test.webhook"))
            let appleTime = Int64(Date().timeIntervalSince1970 * 1000)
            harness.sandbox.script(
                deviceTokenPrefix: "e3", .reject(status: 410, reason: "Unregistered", timestamp: appleTime))
            let deadNotification = try await harness.insertFanOut(count: 5, tokenPrefix: "e3")
            try await harness.client.execute("UPDATE device_tokens SET registered_at = now() - interval '1 hour'")
            let liveNotification = try await harness.insertFanOut(count: 200, tokenPrefix: "e4")
            let started = ContinuousClock.now
            let done = try await harness.run(harness.makeEngine(webhook: webhook)) {
                let dead = try await harness.states(of: deadNotification)
                let live = try await harness.states(of: liveNotification)
                return dead == ["token_expired": 5] && live == ["sent": 200]
            }
            #expect(done)
            #expect(ContinuousClock.now - started < .seconds(10))
            try await harness.stop()
        }
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
