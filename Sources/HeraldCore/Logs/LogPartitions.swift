public import Foundation
public import Postgres

/// The day partitions of a table partitioned by day (``PartitionedTable``): the delivery log
/// (Migrations/0023_partitioned_push_logs.up.sql) and the interactions with its pushes (Migrations/0043). Each
/// partition holds the rows of one UTC day and is named `<table>_pYYYYMMDD`; `<table>_default` takes any row no day
/// partition covers, so a write never fails for want of one.
///
/// Every gateway and worker process keeps the partitions of today and the next ``daysAhead`` days in place
/// (``ensure(daysAhead:now:)`` at start-up and every hour, through ``maintain(_:every:logger:)``); any number of
/// processes may do it at once. `herald prune` drops whole days with ``drop(endingBy:)``.
public struct LogPartitions: Sendable {
    /// One day partition: the rows created in `[start, end)`.
    public struct Partition: Sendable, Hashable {
        public var name: String
        public var start: Date
        public var end: Date
    }

    /// Days created ahead of today: enough for a process whose hourly round keeps failing (a lock it cannot get, a
    /// database away) to go on writing into day partitions for a week.
    public static let daysAhead = 7

    /// Serializes the processes that make or drop partitions ("logpart" in ASCII), so two never make the same day.
    static let lockKey: Int64 = 0x6C_6F67_7061_7274
    static let secondsPerDay: TimeInterval = 86_400

    public let client: PostgresClient
    public let table: PartitionedTable
    /// The longest a statement waits for a table lock. Creating a day takes a brief exclusive lock on the default
    /// partition and dropping one on the whole log; a statement queued behind a long read would hold up every log
    /// write and read queued behind it, so it gives up instead and the next round tries again.
    public var lockTimeout: Duration

    public init(client: PostgresClient, table: PartitionedTable = .deliveryLog, lockTimeout: Duration = .seconds(5)) {
        self.client = client
        self.table = table
        self.lockTimeout = lockTimeout
    }

    /// Creates the partitions of the UTC day of `now` and of the `daysAhead` days after it that do not exist yet.
    ///
    /// A day whose rows went to the default partition meanwhile (every process was down longer than the days made
    /// ahead, or a row was written with a partition key in that day) has them moved into its new partition in the same
    /// transaction, so the default partition keeps only rows of days no partition was made for.
    /// - Returns: The partitions this call created, oldest first.
    /// - Throws: `PostgresError` when a day cannot be created, for example `55P03` when a lock was not granted within
    ///   ``lockTimeout``; the days created before it stay.
    @discardableResult
    public func ensure(daysAhead: Int = Self.daysAhead, now: Date = Date()) async throws -> [Partition] {
        let today = Self.dayStart(containing: now)
        let wanted = (0...max(daysAhead, 0)).map { partition(startingAt: today + Double($0) * Self.secondsPerDay) }
        let existing = Set(try await list().map(\.name))
        var created: [Partition] = []
        for partition in wanted where !existing.contains(partition.name) {
            if try await create(partition) { created.append(partition) }
        }
        return created
    }

    /// Every day partition, oldest first (the default partition is not one).
    public func list() async throws -> [Partition] {
        try await client.query(
            """
            SELECT c.relname::text, bounds[1]::timestamptz, bounds[2]::timestamptz
            FROM pg_inherits AS i
            JOIN pg_class AS c ON c.oid = i.inhrelid,
                regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)')
                    AS bounds
            WHERE i.inhparent = to_regclass(\(table.name)) AND bounds IS NOT NULL
            ORDER BY 2
            """
        ).decode((String, Date, Date).self).map { Partition(name: $0, start: $1, end: $2) }
    }

    /// The day partition covering `[start, start + 1 day)`.
    func partition(startingAt start: Date) -> Partition {
        let day = Self.utcCalendar.dateComponents([.year, .month, .day], from: start)
        let name = table.name + "_p" + String(format: "%04d%02d%02d", day.year!, day.month!, day.day!)
        return Partition(name: name, start: start, end: start + Self.secondsPerDay)
    }

    /// Midnight UTC of the day holding `date`.
    static func dayStart(containing date: Date) -> Date {
        Date(
            timeIntervalSince1970: (date.timeIntervalSince1970 / Self.secondsPerDay).rounded(.down) * Self.secondsPerDay
        )
    }

    /// Creates `partition` unless another process did: made as a plain table, filled with the default partition's
    /// rows of its day, then attached. `ATTACH PARTITION` takes only a share-update-exclusive lock on the log (reads
    /// and writes go on), where `CREATE TABLE … PARTITION OF` would lock it exclusively.
    /// - Returns: Whether this call created it.
    private func create(_ partition: Partition) async throws -> Bool {
        let from = Self.boundLiteral(partition.start)
        let to = Self.boundLiteral(partition.end)
        return try await client.withTransaction { connection in
            try await connection.execute(
                "SELECT set_config('lock_timeout', \(Self.milliseconds(lockTimeout)), true)")
            try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
            let exists = try await connection.query("SELECT to_regclass(\(partition.name)) IS NOT NULL").scalar(
                Bool.self)
            if exists { return false }
            // Locked first, so no row of the day can reach the default partition between the move and the attach
            // (which would then refuse, finding it there).
            try await connection.execute(
                "LOCK TABLE \(identifier: table.defaultPartition) IN ACCESS EXCLUSIVE MODE")
            try await connection.execute(
                """
                CREATE TABLE \(identifier: partition.name)
                    (LIKE \(identifier: table.name) INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                """)
            try await connection.execute(
                """
                WITH moved AS (
                    DELETE FROM \(identifier: table.defaultPartition)
                    WHERE \(identifier: table.key) >= \(partition.start) AND \(identifier: table.key) < \(partition.end)
                    RETURNING *
                )
                INSERT INTO \(identifier: partition.name) SELECT * FROM moved
                """)
            try await connection.execute(
                """
                ALTER TABLE \(identifier: table.name) ATTACH PARTITION \(identifier: partition.name)
                    FOR VALUES FROM (\(unescaped: from)) TO (\(unescaped: to))
                """)
            return true
        }
    }

    /// A partition bound as SQL text (bounds are part of the statement, not parameters): `'2025-01-31 00:00:00+00'`.
    static func boundLiteral(_ date: Date) -> String {
        let c = Self.utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "'%04d-%02d-%02d %02d:%02d:%02d+00'", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)"
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
