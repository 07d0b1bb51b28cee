import Foundation
import HeraldCore
import Postgres

/// The log rows of the engine's run, read back and cut into the raw client's batches, so that the raw client can
/// write each batch's rows after its answers: what any engine pays at the least if it keeps a durable log row per
/// push, without claims, result updates or planning.
///
/// The rows are the engine's own (same payloads, keys and index entries) and go in the way the engine writes them,
/// binary COPY into `push_notification_logs` and a commit, but once per batch where the engine writes once per chunk
/// of answers: if anything the floor is low.
struct LogRowFloor {
    private let client: PostgresClient
    private let batches: [PostgresCopyRows]

    init(client: PostgresClient, rows count: Int, batchSize: Int) async throws {
        self.client = client
        let columns = DeliveryStore.logColumns
        let rows = try await client.query(
            """
            SELECT \(unescaped: columns.joined(separator: ", ")) FROM push_notification_logs
            ORDER BY created_at, id LIMIT \(count)
            """)
        var batches: [PostgresCopyRows] = []
        var batch = PostgresCopyRows(columns: columns)
        for row in rows {
            try batch.appendRow { values in try Self.copy(row, into: &values) }
            if batch.count == batchSize {
                batches.append(batch)
                batch = PostgresCopyRows(columns: columns)
            }
        }
        if batch.count > 0 { batches.append(batch) }
        guard batches.reduce(0, { $0 + $1.count }) == count else {
            throw PostgresError(kind: .invalidUsage, message: "the engine left fewer than \(count) log rows")
        }
        self.batches = batches
    }

    /// Writes the log rows of the raw client's batch `index` in a transaction of their own.
    func write(batch index: Int) async throws {
        _ = try await client.withTransaction { try await $0.copy(batches[index], into: "push_notification_logs") }
    }

    /// One log row's values in ``DeliveryStore/logColumns`` order, with their stored types.
    private static func copy(_ row: PostgresRow, into values: inout PostgresCopyRows.Row) throws {
        values.append(try row.decode(column: 0, as: UUID.self))
        values.append(try row.decode(column: 1, as: UUID?.self))
        values.append(try row.decode(column: 2, as: UUID.self))
        values.append(try row.decode(column: 3, as: UUID.self))
        values.append(try row.decode(column: 4, as: String.self))
        values.append(try row.decode(column: 5, as: String.self))
        values.append(try row.decode(column: 6, as: String?.self))
        values.append(try row.decode(column: 7, as: UUID?.self))
        values.append(try row.decode(column: 8, as: PostgresJSON?.self))
        values.append(try row.decode(column: 9, as: String?.self))
        values.append(try row.decode(column: 10, as: UUID?.self))
        values.append(try row.decode(column: 11, as: String.self))
        values.append(try row.decode(column: 12, as: Int32.self))
        values.append(try row.decode(column: 13, as: Int32?.self))
        values.append(try row.decode(column: 14, as: String?.self))
        values.append(try row.decode(column: 15, as: Double?.self))
        values.append(try row.decode(column: 16, as: String?.self))
        values.append(try row.decode(column: 17, as: Date?.self))
        values.append(try row.decode(column: 18, as: UUID?.self))
    }
}
