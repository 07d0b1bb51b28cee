public import Logging
import Postgres

extension LogPartitions {
    /// Keeps the partitions ahead until the task is cancelled: ``ensure(daysAhead:now:)`` at once, then every
    /// `interval` (a minute after a failed round), and the log's own statistics refreshed once a day
    /// (``analyzeIfStale()``). Failures are logged and never end the loop: a day not made in time only sends its rows
    /// to the default partition.
    public func maintain(every interval: Duration = .seconds(3600), logger: Logger) async {
        while !Task.isCancelled {
            var wait = interval
            do {
                for partition in try await ensure() {
                    logger.info("created log partition", metadata: [LogPartitionMetadataKey.name: "\(partition.name)"])
                }
                if try await analyzeIfStale() { logger.info("refreshed the delivery log's statistics") }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "keeping the delivery log's partitions failed; trying again in a minute",
                    metadata: [LogPartitionMetadataKey.error: "\(error)"])
                wait = min(interval, .seconds(60))
            }
            try? await Task.sleep(for: wait)
        }
    }

    /// Runs `ANALYZE` on the partitioned log when its statistics are over a day old (or missing), unless another
    /// process is busy with the partitions right now.
    ///
    /// Autovacuum analyzes each partition but never the partitioned table, whose statistics (the number of distinct
    /// users, notifications, …) the planner needs for a filter joined over every partition, such as `userId`: without
    /// them it guesses, and may read the whole log newest first looking for one user's rows.
    /// - Returns: Whether it analyzed.
    @discardableResult
    public func analyzeIfStale() async throws -> Bool {
        try await client.withTransaction { connection in
            guard try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.lockKey))").scalar(Bool.self)
            else { return false }
            let stale = try await connection.query(
                """
                SELECT coalesce(greatest(last_analyze, last_autoanalyze) < now() - interval '1 day', true)
                FROM pg_stat_user_tables WHERE relid = to_regclass(\(Self.table))
                """
            ).first?.decode(column: 0, as: Bool.self)
            guard stale ?? false else { return false }
            try await connection.execute(
                "SELECT set_config('lock_timeout', \(Self.milliseconds(lockTimeout)), true)")
            try await connection.execute("ANALYZE \(identifier: Self.table)")
            return true
        }
    }
}

/// Metadata keys of the log-partition maintenance's log lines.
enum LogPartitionMetadataKey {
    static let name = "herald.log_partition.name"
    static let error = "herald.error"
}
