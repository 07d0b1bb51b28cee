import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Testing

extension Networked {
    /// The claim serves the immediate lane first: a push there does not wait behind a bulk fan-out queued before it.
    @Suite struct DeliveryLaneTests {
        @Test func anImmediateSendOvertakesAQueuedBulkFanOut() async throws {
            let harness = try await EngineHarness.start()
            _ = try await harness.insertFanOut(count: 2_000, tokenPrefix: "b1")
            let user = try await harness.insertUser()
            let callToken = EngineHarness.token("cc1")
            let device = try await harness.insertDevice(user: user, token: callToken)
            let notification = try await harness.insertNotification(.alert(title: "Call", body: "Now"))
            _ = try await harness.insertDelivery(
                notification: notification, user: user, device: device, lane: .immediate)

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
    }
}
