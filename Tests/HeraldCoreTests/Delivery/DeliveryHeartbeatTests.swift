import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// Each delivering process shows itself in the operations view while it runs, and leaves it when it stops.
    @Suite struct DeliveryHeartbeatTests {
        @Test func anEngineWritesItsRowWhileItRunsAndDeletesItWhenItStops() async throws {
            let harness = try await EngineHarness.start()
            let engine = harness.makeEngine()
            let worker = engine.configuration.workerID
            let seen = try await harness.run(engine, timeout: .seconds(15)) {
                try await harness.client.query(
                    "SELECT count(*) FROM delivery_workers WHERE worker = \(worker) AND last_seen_at > now() - interval '1 minute'"
                ).scalar(Int.self) == 1
            }
            #expect(seen, "the running engine's heartbeat")
            #expect(
                try await harness.client.query("SELECT count(*) FROM delivery_workers").scalar(Int.self) == 0,
                "a stopped engine removes its row")
            try await harness.stop()
        }
    }
}
