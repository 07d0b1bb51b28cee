public import Foundation
import Postgres

extension LogPartitions {
    /// What ``drop(endingBy:)`` removed.
    public struct Dropped: Sendable, Hashable {
        public var partitions: Int
        /// The rows those partitions held.
        public var rows: Int
    }

    /// Drops every day partition whose whole day lies before `cutoff`, oldest first: a catalog change instead of a
    /// delete per row, and no dead rows left for vacuum. The rows of the day holding `cutoff`, and old rows in the
    /// default partition, are left for a delete by row.
    ///
    /// Each partition's rows are counted (under a share lock on that partition only), then it is detached, which
    /// holds an exclusive lock on the whole log for an instant, and dropped in a transaction of its own: removing a
    /// day's files at commit takes a few hundred milliseconds, which no read or write of the log then waits for. A
    /// detach that cannot get its lock within ``lockTimeout`` is tried again a few times before the error is thrown.
    /// A day detached by a prune that stopped before dropping it is dropped by the next one.
    /// - Throws: `PostgresError`; the partitions dropped before it stay dropped.
    public func drop(endingBy cutoff: Date) async throws -> Dropped {
        var dropped = Dropped(partitions: 0, rows: 0)
        var detached = try await leftovers()
        for partition in try await list() where partition.end <= cutoff {
            if let table = try await detachRetrying(partition) { detached.append(table) }
        }
        for (name, rows) in detached {
            try await client.execute("DROP TABLE IF EXISTS \(identifier: name)")
            dropped.partitions += 1
            dropped.rows += rows
        }
        return dropped
    }

    /// Day tables detached from the log but not dropped, with their rows.
    private func leftovers() async throws -> [(name: String, rows: Int)] {
        let names = try await client.query(
            """
            SELECT c.relname::text FROM pg_class AS c
            WHERE c.relkind = 'r' AND NOT c.relispartition AND c.relname ~ \("^" + table.name + "_p[0-9]{8}$")
                AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = to_regclass(\(table.name)))
            ORDER BY 1
            """
        ).decode(String.self)
        var tables: [(name: String, rows: Int)] = []
        for name in names {
            tables.append(
                (name, try await client.query("SELECT count(*) FROM \(identifier: name)").scalar(Int.self)))
        }
        return tables
    }

    private func detachRetrying(_ partition: Partition) async throws -> (name: String, rows: Int)? {
        var attempt = 1
        while true {
            do {
                return try await detach(partition)
            } catch let error as PostgresError where error.sqlState == .lockNotAvailable && attempt < 5 {
                attempt += 1
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// - Returns: The table and the rows it holds, or nil when another process detached it first.
    private func detach(_ partition: Partition) async throws -> (name: String, rows: Int)? {
        try await client.withTransaction { connection in
            try await connection.execute(
                "SELECT set_config('lock_timeout', \(Self.milliseconds(lockTimeout)), true)")
            try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
            let attached = try await connection.query(
                """
                SELECT EXISTS (
                    SELECT FROM pg_inherits
                    WHERE inhrelid = to_regclass(\(partition.name)) AND inhparent = to_regclass(\(table.name)))
                """
            ).scalar(Bool.self)
            guard attached else { return nil }
            let rows = try await connection.query("SELECT count(*) FROM \(identifier: partition.name)").scalar(Int.self)
            try await connection.execute(
                "ALTER TABLE \(identifier: table.name) DETACH PARTITION \(identifier: partition.name)")
            // Its rows' minutes go in the same transaction, so statistics never count rows the table no longer has.
            if let rollup = table.minuteRollup {
                try await connection.execute(
                    """
                    DELETE FROM \(identifier: rollup) WHERE minute >= \(partition.start) AND minute < \(partition.end)
                    """)
            }
            return (partition.name, rows)
        }
    }
}
