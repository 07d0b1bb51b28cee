import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// The burst guard is kept per app and environment: fake tokens for one app hold back that app's deactivations
    /// only.
    @Suite struct BurstGuardIsolationTests {
        @Test func fakeTokensOfOneAppDoNotHoldBackAnothersDeactivations() async throws {
            let other = "com.example.other"
            let harness = try await EngineHarness.start(bundleIDs: [other])
            let appleTime = Int64(Date().timeIntervalSince1970 * 1000)
            for prefix in ["ee", "dd"] {
                harness.sandbox.script(
                    deviceTokenPrefix: prefix, .reject(status: 410, reason: "Unregistered", timestamp: appleTime))
            }
            // 60 fake tokens of the default app trip its guard; 5 dead tokens of another app come due after them.
            let fakes = try await harness.insertFanOut(count: 60, tokenPrefix: "ee")
            let dead = try await harness.insertFanOut(count: 5, tokenPrefix: "dd", topic: other)
            try await harness.client.execute("UPDATE device_tokens SET registered_at = now() - interval '1 day'")
            try await harness.client.execute(
                "UPDATE deliveries SET next_attempt_at = now() + interval '2 seconds' WHERE notification_id = \(dead)")
            var configuration = EngineHarness.configuration()
            configuration.policy = DeliveryPolicy(
                maximumAttempts: 2, initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(100))
            let engine = harness.makeEngine(configuration)
            let done = try await harness.run(engine) {
                var open = 0
                for notification in [fakes, dead] {
                    let states = try await harness.states(of: notification)
                    open += states["pending", default: 0] + states["sending", default: 0]
                }
                return open == 0
            }
            #expect(done)
            let inactive = try await harness.client.query(
                "SELECT topic, count(*) FROM device_tokens WHERE NOT is_active GROUP BY topic ORDER BY topic"
            ).decode((String?, Int).self)
            #expect(inactive.first { $0.0 == nil }?.1 == 19, "the default app's guard tripped after 19")
            #expect(inactive.first { $0.0 == other }?.1 == 5, "the other app's dead tokens are deactivated")
            #expect(try await harness.states(of: dead)["token_expired"] == 5)
            try await harness.stop()
        }
    }
}
