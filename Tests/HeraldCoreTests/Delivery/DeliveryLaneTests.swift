import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// The immediate lane goes first: a push there does not wait behind a bulk fan-out queued before it, nor for the
    /// send window the fan-out holds.
    @Suite struct DeliveryLaneTests {
        /// One call for a device of its own (token `prefix`), in the immediate lane; returns the device's token.
        static func insertCall(_ harness: EngineHarness, token prefix: String) async throws -> String {
            let user = try await harness.insertUser()
            let token = EngineHarness.token(prefix)
            let device = try await harness.insertDevice(user: user, token: token)
            let notification = try await harness.insertNotification(.alert(title: "Call", body: "Now"))
            _ = try await harness.insertDelivery(
                notification: notification, user: user, device: device, lane: .immediate)
            return token
        }

        @Test func anImmediateSendOvertakesAQueuedBulkFanOut() async throws {
            let harness = try await EngineHarness.start()
            _ = try await harness.insertFanOut(count: 2_000, tokenPrefix: "b1")
            let callToken = try await Self.insertCall(harness, token: "cc1")

            var configuration = EngineHarness.configuration()
            configuration.workers = 1
            configuration.batchSize = 100
            let done = try await harness.run(harness.makeEngine(configuration), timeout: .seconds(60)) {
                harness.sandbox.recordedRequests.count >= 2_001
            }
            #expect(done)
            let order = harness.sandbox.recordedRequests.map(\.deviceToken)
            let position = try #require(order.firstIndex(of: callToken))
            // Due last in time order, it is in the first claim of 100.
            #expect(position < 100, "the immediate push went out as number \(position + 1) of \(order.count)")
            try await harness.stop()
        }

        /// An immediate push does not wait for the send window a fan-out holds: the immediate lane's own claim takes
        /// it from the window's reserve. Every bulk push stalls at Apple here, so none of the rest of the window comes
        /// back before the requests time out (20 s).
        @Test func anImmediateSendGoesOutWhileAFanOutHoldsTheWindow() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(deviceTokenPrefix: "5711", .stall)
            var configuration = EngineHarness.configuration()
            configuration.inFlight = InFlightLimit.Bounds(floor: 64, ceiling: 64)
            let engine = harness.makeEngine(configuration)
            let runner = Task { await engine.run() }
            // A first push answered normally ends the engine's opening probe, which sends one push alone.
            _ = try await harness.insertFanOut(count: 1, tokenPrefix: "ab")
            let deadline = ContinuousClock.now + .seconds(15)
            while harness.sandbox.recordedRequests.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let opening = harness.sandbox.recordedRequests.map(\.deviceToken)
            _ = try await harness.insertFanOut(count: 300, tokenPrefix: "5711")
            let claimedBulk = {
                try await harness.client.query("SELECT count(*) FROM deliveries WHERE state = 'sending'").scalar(
                    Int.self)
            }
            while try await claimedBulk() < 60, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let claimedFirst = try await claimedBulk()
            #expect(claimedFirst == 60, "the fan-out fills the window less its reserve of 4, not \(claimedFirst)")

            let callToken = try await Self.insertCall(harness, token: "cc2")
            while !harness.sandbox.recordedRequests.contains(where: { $0.deviceToken == callToken }),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(harness.sandbox.recordedRequests.map(\.deviceToken) == opening + [callToken])
            #expect(try await claimedBulk() == 60, "the stalled fan-out still holds its part of the window")
            engine.shutdownGracefully()
            await runner.value
            try await harness.stop()
        }
    }
}
