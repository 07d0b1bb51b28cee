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
    /// Each partition's rows are counted first (under a share lock on that partition only), then it is dropped,
    /// which holds an exclusive lock on the whole log for the instant of the drop; a drop that cannot get it within
    /// ``lockTimeout`` is tried again a few times before the error is thrown.
    /// - Throws: `PostgresError`; the partitions dropped before it stay dropped.
    public func drop(endingBy cutoff: Date) async throws -> Dropped {
        var dropped = Dropped(partitions: 0, rows: 0)
        for partition in try await list() where partition.end <= cutoff {
            if let rows = try await dropRetrying(partition) {
                dropped.partitions += 1
                dropped.rows += rows
            }
        }
        return dropped
    }

    private func dropRetrying(_ partition: Partition) async throws -> Int? {
        var attempt = 1
        while true {
            do {
                return try await drop(partition)
            } catch let error as PostgresError where error.sqlState == .lockNotAvailable && attempt < 5 {
                attempt += 1
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// - Returns: The rows it held, or nil when another process dropped it first.
    private func drop(_ partition: Partition) async throws -> Int? {
        try await client.withTransaction { connection in
            try await connection.execute(
                "SELECT set_config('lock_timeout', \(Self.milliseconds(lockTimeout)), true)")
            try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
            let exists = try await connection.query("SELECT to_regclass(\(partition.name)) IS NOT NULL").scalar(
                Bool.self)
            guard exists else { return nil }
            let rows = try await connection.query("SELECT count(*) FROM \(identifier: partition.name)").scalar(Int.self)
            try await connection.execute("DROP TABLE \(identifier: partition.name)")
            return rows
        }
    }
}
