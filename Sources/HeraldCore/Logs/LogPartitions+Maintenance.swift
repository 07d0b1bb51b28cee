public import Logging
public import Postgres
public import ServiceLifecycle

/// Keeps the day partitions of every ``PartitionedTable`` ahead for as long as Herald runs: the service form of
/// ``LogPartitions/maintain(_:every:logger:)``, stopped by the service group.
public struct LogPartitionUpkeep: Service {
    let tables: [LogPartitions]
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        tables = PartitionedTable.all.map { LogPartitions(client: client, table: $0) }
        self.logger = logger
    }

    public func run() async {
        await cancelWhenGracefulShutdown { [tables, logger] in await LogPartitions.maintain(tables, logger: logger) }
    }
}

extension LogPartitions {
    /// Keeps the partitions of `tables` ahead until the task is cancelled: ``ensure(daysAhead:now:)`` at once, then
    /// every `interval` (a minute after a failed round). Failures are logged and never end the loop: a day not made
    /// in time only sends its rows to the default partition.
    public static func maintain(
        _ tables: [LogPartitions], every interval: Duration = .seconds(3600), logger: Logger
    ) async {
        while !Task.isCancelled {
            var wait = interval
            for partitions in tables {
                do {
                    for partition in try await partitions.ensure() {
                        logger.info(
                            "created log partition", metadata: [LogPartitionMetadataKey.name: "\(partition.name)"])
                    }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning(
                        "keeping a table's day partitions failed; trying again in a minute",
                        metadata: [
                            LogPartitionMetadataKey.table: "\(partitions.table.name)",
                            LogPartitionMetadataKey.error: "\(error)",
                        ])
                    wait = min(interval, .seconds(60))
                }
            }
            try? await Task.sleep(for: wait)
        }
    }
}

/// Metadata keys of the log-partition maintenance's log lines.
enum LogPartitionMetadataKey {
    static let name = "herald.log_partition.name"
    static let table = "herald.log_partition.table"
    static let error = "herald.error"
}
