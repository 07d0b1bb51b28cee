/// A table Herald partitions by UTC day (``LogPartitions``), so retention drops whole days of it.
public struct PartitionedTable: Sendable, Hashable {
    public var name: String
    /// The column the days are ranges of.
    public var key: String
    /// A table of counts per minute of this one's rows, whose minutes go with a dropped day.
    public var minuteRollup: String?

    /// The partition that takes rows no day partition covers.
    public var defaultPartition: String { name + "_default" }

    /// The delivery log (Migrations/0023), counted per minute in `push_log_minutes` (Migrations/0033).
    public static let deliveryLog = PartitionedTable(
        name: "push_notification_logs", key: "created_at", minuteRollup: "push_log_minutes")
    /// What people did with their pushes (Migrations/0043), by the day the push was sent: an interaction lives in
    /// the day of the log row it answers, and goes with it.
    public static let interactions = PartitionedTable(name: "push_interactions", key: "sent_at", minuteRollup: nil)

    /// Every table kept in days, in the order retention drops them.
    public static let all: [PartitionedTable] = [.deliveryLog, .interactions]
}
