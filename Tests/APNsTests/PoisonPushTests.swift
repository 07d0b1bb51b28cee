import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldTesting
import Testing

extension Networked {
    /// A push no server takes costs its sender a failure, never the other pushes on its connection.
    @Suite
    struct PoisonPushTests {
        @Test func unfitHeaderValuesAreRefusedBeforeSendingAndTheConnectionStays() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let unfit = try PushRequest(
                deviceToken: MockHarness.deviceToken(index: 1), bundleID: MockHarness.bundleID, pushType: .alert,
                collapseID: CollapseID("a\r\nb"), payloadJSON: Data(#"{"aps":{"alert":"Hi"}}"#.utf8))
            let (before, refused, after) = try await harness.withPool(harness.configuration()) { pool in
                let before = try await pool.send(MockHarness.alert(MockHarness.deviceToken(index: 0)))
                let refused = try await pool.send(unfit)
                let after = try await pool.send(MockHarness.alert(MockHarness.deviceToken(index: 2)))
                return (before, refused, after)
            }
            #expect(before.uniqueID != nil)
            #expect(refused == .failed(.unsafeHeaderValue("apns-collapse-id")))
            #expect(after.uniqueID != nil)
            #expect(harness.mock.connectionCount == 1, "the connection was never broken")
            #expect(harness.mock.recordedRequests.count == 2, "the unfit request never reached the server")
        }

        @Test func aPushThatKillsItsConnectionFailsAloneAndTheRestIsAccepted() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let poison = MockHarness.deviceToken(prefix: "dead", index: 0)
            harness.mock.killConnections(onDeviceToken: poison.hex)
            harness.mock.setResponseDelay(.milliseconds(20))
            let (results, poisoned, elapsed) = try await harness.withPool(harness.configuration()) { pool in
                let started = ContinuousClock.now
                async let poisoned = pool.send(MockHarness.alert(poison))
                let results = try await ResilienceTests.burst(50, through: pool)
                return (results, try await poisoned, ContinuousClock.now - started)
            }
            #expect(ResilienceTests.notAccepted(results).isEmpty)
            #expect(poisoned == .failed(.connectionRefusedRequest))
            // Two connection errors make it a suspect; the third, with it alone on the connection, fails it.
            #expect(harness.mock.killedConnectionCount == 3)
            #expect(elapsed < .seconds(10))
        }
    }
}
