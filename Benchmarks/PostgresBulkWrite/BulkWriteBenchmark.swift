import Foundation
import HeraldCore
import LocalServices
import Logging
import Postgres

// Writes delivery-log rows into `push_notification_logs` three ways and prints rows/s for each:
// one INSERT per row (each its own transaction), one INSERT per row inside one transaction, and COPY.
//
// usage: postgres-bulk-bench [rows]   (default 100000; DATABASE_URL selects a server, else a private one starts)

@main
struct BulkWriteBenchmark {
    static func main() async throws {
        try await run()
    }

    /// Off the main actor, like a server's request handlers.
    nonisolated static func run() async throws {
        let rowCount = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
        try await EmbeddedPostgres.withDatabase(
            url: ProcessInfo.processInfo.environment["DATABASE_URL"], options: .init(durable: true)
        ) { url in try await writeRows(databaseURL: url, rowCount: rowCount) }
    }

    /// Writes `rowCount` log rows each way into the database at `adminURL`.
    nonisolated static func writeRows(databaseURL adminURL: String, rowCount: Int) async throws {
        let logger = Logger(label: "herald.bench")
        let migrations = try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!)
        let client = PostgresClient(configuration: try PostgresConfiguration(adminURL), logger: logger)
        try await Migrator(client: client, migrations: migrations, logger: logger).up()
        // A database migrated days ago (DATABASE_URL) may lack today's log partition, as a running gateway would not.
        try await LogPartitions(client: client).ensure()

        let settings = try await client.query(
            """
            SELECT name || '=' || setting FROM pg_settings
            WHERE name IN (
                'fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'wal_level', 'max_wal_size')
            ORDER BY name
            """
        ).decode(String.self)
        let version = try await client.query("SHOW server_version").scalar(String.self)
        print("PostgreSQL \(version): \(settings.joined(separator: ", "))")

        let userID = try await client.query(
            "INSERT INTO users (external_id, email, name) VALUES ('bench', 'bench@example.com', 'Bench') RETURNING id"
        ).scalar(UUID.self)
        let notificationID = UUID()
        // Ids are made up front so that every method writes the same rows and only the writing is timed.
        let deliveryIDs = (0..<rowCount).map { _ in UUID() }
        let payload = try PostgresJSON(encoding: [
            "aps": ["alert": ["title": "New Feedback", "body": "Dark mode please"]]
        ])

        /// Writes one log row's values, in the order of ``InsertLogRow/columns``.
        func writeLogRow(_ index: Int, into row: inout some PostgresValueWriter) {
            row.append(userID)
            row.append(notificationID)
            row.append(deliveryIDs[index])
            row.append("new_feedback")
            row.append(index.isMultiple(of: 10) ? "failed" : "sent")
            row.append(payload)
            row.append(deliveryIDs[index])
            row.append("production")
            row.append(Int32(1))
            row.append(Int32(index.isMultiple(of: 10) ? 410 : 200))
            row.append(index.isMultiple(of: 10) ? "Unregistered" : nil)
            row.append(Double(index % 50) + 0.25)
        }
        func logRow(_ index: Int) -> PostgresBindings {
            var values = PostgresBindings()
            writeLogRow(index, into: &values)
            return values
        }

        func measure(_ label: String, rows: Int, _ body: () async throws -> Void) async throws {
            try await client.execute("TRUNCATE push_notification_logs")
            let start = ContinuousClock.now
            try await body()
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let count = try await client.query("SELECT count(*) FROM push_notification_logs").scalar(Int.self)
            precondition(count == rows, "\(label) wrote \(count) rows, expected \(rows)")
            print(
                String(
                    format: "%-36@ %8d rows in %7.2f s  %10.0f rows/s", label as NSString, rows, seconds,
                    Double(rows) / seconds))
        }

        // Single-row autocommit inserts are slow by nature; a tenth of the rows is enough to measure their rate.
        let singleRows = max(rowCount / 10, 1)
        try await client.withConnection { connection in
            try await measure("single-row INSERT, autocommit", rows: singleRows) {
                for index in 0..<singleRows { try await connection.execute(InsertLogRow(values: logRow(index))) }
            }
            try await measure("single-row INSERT, one transaction", rows: rowCount) {
                try await connection.withTransaction { connection in
                    for index in 0..<rowCount { try await connection.execute(InsertLogRow(values: logRow(index))) }
                }
            }
            try await measure("COPY (binary), one statement", rows: rowCount) {
                var rows = PostgresCopyRows(columns: InsertLogRow.columns, reservingCapacity: rowCount * 160)
                for index in 0..<rowCount {
                    try rows.appendRow { row in writeLogRow(index, into: &row) }
                }
                try await connection.copy(rows, into: "push_notification_logs")
            }
        }
        client.shutdown()
    }
}

/// One log row's INSERT, its values bound as the COPY writes them.
private struct InsertLogRow: PostgresStatement {
    typealias Row = Void

    static let columns = [
        "user_id", "notification_id", "delivery_id", "notification_type", "status", "payload", "apns_id",
        "environment", "attempt", "http_status", "apns_reason", "latency_ms",
    ]

    static let name = "bench_insert_log"

    static let sql =
        "INSERT INTO push_notification_logs (\(columns.joined(separator: ", "))) "
        + "VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", ")))"

    /// The row's values, one per column.
    let values: PostgresBindings

    func makeBindings() -> PostgresBindings { values }
}
