public import Logging
public import ServiceLifecycle

/// Keeps the delivery log's partitions ahead for as long as Herald runs: the service form of
/// ``LogPartitions/maintain(every:logger:)``, stopped by the service group.
public struct LogPartitionUpkeep: Service {
    let partitions: LogPartitions
    let logger: Logger

    public init(partitions: LogPartitions, logger: Logger) {
        self.partitions = partitions
        self.logger = logger
    }

    public func run() async {
        await cancelWhenGracefulShutdown { [partitions, logger] in await partitions.maintain(logger: logger) }
    }
}

extension LogPartitions {
    /// Keeps the partitions ahead until the task is cancelled: ``ensure(daysAhead:now:)`` at once, then every
    /// `interval` (a minute after a failed round). Failures are logged and never end the loop: a day not made in time
    /// only sends its rows to the default partition.
    public func maintain(every interval: Duration = .seconds(3600), logger: Logger) async {
        while !Task.isCancelled {
            var wait = interval
            do {
                for partition in try await ensure() {
                    logger.info("created log partition", metadata: [LogPartitionMetadataKey.name: "\(partition.name)"])
                }
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
}

/// Metadata keys of the log-partition maintenance's log lines.
enum LogPartitionMetadataKey {
    static let name = "herald.log_partition.name"
    static let error = "herald.error"
}
