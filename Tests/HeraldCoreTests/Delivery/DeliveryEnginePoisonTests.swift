import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Synchronization
import Testing

extension Networked {
    /// A push that kills its APNs connection every time it is sent stalls nobody else's pushes, and fails itself.
    @Suite struct DeliveryEnginePoisonTests {
        @Test(.timeLimit(.minutes(1)))
        func aPushThatKillsItsConnectionFailsAloneAndEveryoneElseIsDelivered() async throws {
            // One connection: the poison push shares it with everyone else's.
            let harness = try await EngineHarness.start()
            let poisonToken = EngineHarness.token("dead")
            harness.sandbox.killConnections(onDeviceToken: poisonToken)
            let fanOut = try await harness.insertFanOut(count: 50, tokenPrefix: "f0")
            let owner = try await harness.client.query(
                "SELECT user_id FROM deliveries WHERE notification_id = \(fanOut) LIMIT 1"
            ).scalar(UUID.self)
            let poisonDevice = try await harness.insertDevice(user: owner, token: poisonToken)
            let poison = try await harness.insertDelivery(notification: fanOut, user: owner, device: poisonDevice)
            // Another user's push, made at the same moment.
            let other = try await harness.insertUser()
            let otherDevice = try await harness.insertDevice(user: other, token: EngineHarness.token("0e"))
            let otherSend = try await harness.insertNotification(.alert(title: "Herald", body: "Yours"))
            _ = try await harness.insertDelivery(notification: otherSend, user: other, device: otherDevice)

            let engine = harness.makeEngine()
            let started = ContinuousClock.now
            let goodDelivered = FirstSeen()
            let done = try await harness.run(engine, timeout: .seconds(30)) {
                let fanOutStates = try await harness.states(of: fanOut)
                let otherStates = try await harness.states(of: otherSend)
                if fanOutStates["sent"] == 50 && otherStates == ["sent": 1] { goodDelivered.mark() }
                return fanOutStates == ["sent": 50, "failed": 1] && otherStates == ["sent": 1]
            }

            let states = (try await harness.states(of: fanOut), try await harness.states(of: otherSend))
            #expect(done, "states: \(states)")
            let deliveredAfter = try #require(goodDelivered.instant) - started
            #expect(deliveredAfter < .seconds(10), "the 51 good pushes took \(deliveredAfter)")
            let failed = try await harness.delivery(poison)
            #expect(failed.state == "failed")
            #expect(failed.reason == DeliveryReason.connectionRefusedRequest.text)
            #expect(failed.attempts == 1, "not retried")
            #expect(engine.recorded.failed(reason: .connectionRefusedRequest) == 1)
            let killed = harness.sandbox.killedConnectionCount
            #expect(killed >= 1 && killed <= 8, "the mock killed \(killed) connections over the poison push")
            try await harness.stop()
        }
    }
}

/// When a condition polled in a loop first held.
private final class FirstSeen: Sendable {
    private let seen = Mutex<ContinuousClock.Instant?>(nil)

    func mark() {
        seen.withLock { $0 = $0 ?? .now }
    }

    var instant: ContinuousClock.Instant? { seen.withLock { $0 } }
}
