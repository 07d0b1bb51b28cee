import Foundation
import HeraldTesting
import Postgres
import Testing

@testable import HeraldCore

extension Networked {
    /// Recording reads only the claimed rows, whatever the statistics say of `sending`.
    @Suite struct DeliveryRecordPlanTests {
        /// The outbox is analysed while every row is pending, as autovacuum often finds it, then 2,000 rows are
        /// claimed: joined to the results alone, the planner took the `sending` rows for one and scanned the whole
        /// outbox, testing each row against every result.
        @Test func recordStatementsReadTheClaimedRowsOnly() async throws {
            let harness = try await EngineHarness.start()
            _ = try await harness.insertFanOut(count: 20_000, tokenPrefix: "e7")
            try await harness.client.execute("ANALYZE deliveries")
            let claimed = try await DeliveryStore(client: harness.client).claim(
                limit: 2_000, workerID: "planned", lease: .seconds(60))
            #expect(claimed.count == 2_000)
            let attempts = claimed.prefix(500).map { delivery in
                DeliveryAttempt(
                    delivery: delivery, outcome: .sent(correctedEnvironment: nil), httpStatus: 200, reason: nil,
                    latency: 0.01, payload: nil, errorMessage: nil, feedbackID: nil, finishedAt: Date())
            }
            let statements = [
                (
                    DeliveryStore.deleteInPlaceStatement,
                    DeliveryStore.deleteBindings(attempts, workerID: "planned", byLocation: true)
                ),
                (
                    DeliveryStore.deleteStatement,
                    DeliveryStore.deleteBindings(attempts, workerID: "planned", byLocation: false)
                ),
                (
                    DeliveryStore.recordInPlaceStatement,
                    DeliveryStore.recordBindings(attempts, workerID: "planned", byLocation: true)
                ),
                (
                    DeliveryStore.recordStatement,
                    DeliveryStore.recordBindings(attempts, workerID: "planned", byLocation: false)
                ),
            ]
            for (statement, bindings) in statements {
                let plan = try await harness.client.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, bindings: bindings)
                ).decode(String.self).joined(separator: "\n")
                #expect(!plan.contains("Seq Scan on deliveries"), "\(statement.name):\n\(plan)")
            }
            try await harness.stop()
        }
    }
}
