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
            // The test's own database: autovacuum is kept from analysing the table again once rows are claimed.
            try await harness.client.execute("ALTER TABLE deliveries SET (autovacuum_enabled = false)")
            _ = try await harness.insertFanOut(count: 20_000, tokenPrefix: "e7")
            try await harness.client.execute("ANALYZE deliveries")
            let claimed = try await DeliveryStore(client: harness.client).claim(
                limit: 2_000, workerID: "planned", lease: .seconds(60))
            #expect(claimed.count == 2_000)
            let attempts = claimed.prefix(500).map(DeliveryAttempt.sent)
            for byLocation in [true, false] {
                let statements =
                    byLocation
                    ? [
                        Self.planned(DeliveryStore.DeleteInPlaceStatement(attempts, workerID: "planned")),
                        Self.planned(DeliveryStore.RecordInPlaceStatement(attempts, workerID: "planned")),
                    ]
                    : [
                        Self.planned(DeliveryStore.DeleteStatement(attempts, workerID: "planned")),
                        Self.planned(DeliveryStore.RecordStatement(attempts, workerID: "planned")),
                    ]
                for (statement, bindings) in statements {
                    let custom = try await harness.client.query(
                        PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, bindings: bindings)
                    ).decode(String.self).joined(separator: "\n")
                    #expect(!custom.contains("Seq Scan on deliveries"), "\(statement.name), custom plan:\n\(custom)")
                    let generic = try await Self.genericPlan(
                        of: statement, parameters: bindings.count, on: harness.client)
                    #expect(!generic.contains("Seq Scan on deliveries"), "\(statement.name), generic plan:\n\(generic)")
                    // By location, a generic plan must not test each row against every result either; by id (only
                    // rows moved since their claim, usually none) it may.
                    if byLocation {
                        #expect(!generic.contains("Join Filter"), "\(statement.name), generic plan:\n\(generic)")
                    }
                }
            }
            try await harness.stop()
        }

        /// A statement's name and SQL, and the values it binds.
        private static func planned<Statement: PostgresStatement>(
            _ statement: Statement
        ) -> (statement: (name: String, sql: String), bindings: PostgresBindings) {
            ((Statement.name, Statement.sql), statement.makeBindings())
        }

        /// The plan a session uses for `statement` once PostgreSQL stops planning it for each call's values: a generic
        /// plan does not depend on them, so `EXPLAIN` (which runs nothing) is given NULLs.
        private static func genericPlan(
            of statement: (name: String, sql: String), parameters: Int, on client: PostgresClient
        ) async throws -> String {
            try await client.withTransaction { connection in
                try await connection.execute("SET LOCAL plan_cache_mode = force_generic_plan")
                try await connection.executeScript(unsafeSQL: "PREPARE plan_check AS " + statement.sql)
                let nulls = Array(repeating: "NULL", count: parameters).joined(separator: ", ")
                let plan = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE plan_check(\(nulls))"))
                    .decode(String.self).joined(separator: "\n")
                try await connection.execute("DEALLOCATE plan_check")
                return plan
            }
        }
    }
}
