import Foundation
import HeraldTesting
import Logging
import Postgres
import Testing

@testable import HeraldCore

/// The delivery log's day partitions: made ahead by any number of processes at once, a default partition under
/// them, whole days dropped by prune.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct LogPartitionsTests {
    static let day: TimeInterval = 86_400

    static func client(_ url: String) throws -> PostgresClient {
        PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test.partitions"))
    }

    /// A user for log rows, and `count` rows for them, one every `every`, the newest at `newest`.
    static func insertRows(
        _ client: PostgresClient, count: Int, every: TimeInterval, newest: Date
    ) async throws {
        let user = try await client.query(
            """
            INSERT INTO users (external_id, email, name)
            SELECT external_id, external_id || '@example.com', 'U' FROM (SELECT 'u-' || gen_random_uuid()) AS u (external_id)
            RETURNING id
            """
        ).scalar(UUID.self)
        try await client.execute(
            """
            INSERT INTO push_notification_logs
                (user_id, notification_id, delivery_id, notification_type, status, environment, attempt, created_at)
            SELECT \(user), gen_random_uuid(), gen_random_uuid(), 'new_feedback', 'sent', 'production', 1,
                \(newest)::timestamptz - make_interval(secs => i * \(every))
            FROM generate_series(0, \(count - 1)) AS i
            """)
    }

    /// Noon UTC of the day `offset` from now.
    static func midday(_ offset: TimeInterval) -> Date {
        LogPartitions.dayStart(containing: Date().addingTimeInterval(offset)).addingTimeInterval(Self.day / 2)
    }

    static func count(_ client: PostgresClient, in table: String = "push_notification_logs") async throws -> Int {
        try await client.query("SELECT count(*) FROM \(identifier: table)").scalar(Int.self)
    }

    @Test func ensureMakesTodayAndTheDaysAheadOnce() async throws {
        let client = try Self.client(try await TestDatabases.shared.heraldDatabase())
        defer { client.shutdown() }
        let partitions = LogPartitions(client: client)
        // A day far from the ones the migration made, so every partition is new.
        let now = Date().addingTimeInterval(100 * Self.day)
        let created = try await partitions.ensure(daysAhead: 7, now: now)
        #expect(created.count == 8)
        #expect(created.first!.start <= now && now < created.first!.end)
        #expect(zip(created, created.dropFirst()).allSatisfy { $0.end == $1.start })
        #expect(created.allSatisfy { $0.end.timeIntervalSince($0.start) == Self.day })
        #expect(created.allSatisfy { Int($0.start.timeIntervalSince1970) % 86_400 == 0 }, "UTC days")
        #expect(try await partitions.ensure(daysAhead: 7, now: now).isEmpty, "a second round makes nothing")
        #expect(try await partitions.ensure(daysAhead: 9, now: now).count == 2, "only the days still missing")
        let listed = try await partitions.list()
        #expect(Set(created.map(\.name)).isSubset(of: listed.map(\.name)))
        #expect(listed.map(\.start) == listed.map(\.start).sorted())

        // Rows of those days go to their partitions, not to the default one.
        try await Self.insertRows(client, count: 24, every: 3_600, newest: created[1].end.addingTimeInterval(-1))
        #expect(try await Self.count(client, in: created[1].name) == 24)
        #expect(try await Self.count(client, in: PartitionedTable.deliveryLog.defaultPartition) == 0)
    }

    /// Several processes starting at once (each its own sessions) make each day exactly once, and none fails.
    @Test func processesEnsuringAtOnceMakeEachDayOnce() async throws {
        let url = try await TestDatabases.shared.heraldDatabase()
        let clients = try (0..<6).map { _ in try Self.client(url) }
        defer { clients.forEach { $0.shutdown() } }
        let now = Date().addingTimeInterval(200 * Self.day)
        let created = try await withThrowingTaskGroup(of: [LogPartitions.Partition].self) { group in
            for client in clients {
                group.addTask { try await LogPartitions(client: client).ensure(daysAhead: 7, now: now) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(created.count == 8, "each day made by exactly one process")
        #expect(Set(created.map(\.name)).count == 8)
        let listed = try await LogPartitions(client: clients[0]).list()
        #expect(Set(created.map(\.name)).isSubset(of: listed.map(\.name)))
    }

    /// A row for a day without a partition lands in the default partition; making that day moves it there.
    @Test func aDayWithoutPartitionWritesToTheDefaultOneUntilItIsMade() async throws {
        let client = try Self.client(try await TestDatabases.shared.heraldDatabase())
        defer { client.shutdown() }
        // Midday UTC, so the five rows a minute apart before it share its day whatever the time of the run.
        let later = Self.midday(300 * Self.day)
        try await Self.insertRows(client, count: 5, every: 60, newest: later)
        try await Self.insertRows(client, count: 3, every: 60, newest: later.addingTimeInterval(20 * Self.day))
        #expect(try await Self.count(client, in: PartitionedTable.deliveryLog.defaultPartition) == 8)

        let created = try await LogPartitions(client: client).ensure(daysAhead: 0, now: later)
        let day = try #require(created.first)
        #expect(try await Self.count(client, in: day.name) == 5, "its rows moved out of the default partition")
        #expect(
            try await Self.count(client, in: PartitionedTable.deliveryLog.defaultPartition) == 3,
            "other days' rows stay")
        #expect(try await Self.count(client) == 8)
        let newRow = try await client.query(
            """
            SELECT tableoid::regclass::text FROM push_notification_logs
            WHERE created_at >= \(day.start) AND created_at < \(day.end) LIMIT 1
            """
        ).scalar(String.self)
        #expect(newRow == day.name)
    }

    /// Prune drops the days wholly before the cutoff (one left detached by an interrupted prune too) and deletes by
    /// row only the day holding it and the default partition's old rows; every newer row stays.
    @Test func pruneDropsOldDaysAndKeepsNewerRows() async throws {
        let client = try Self.client(try await TestDatabases.shared.heraldDatabase())
        defer { client.shutdown() }
        let now = Date()
        let partitions = LogPartitions(client: client)
        // Ten days back, as a gateway running for ten days would have made them.
        try await partitions.ensure(daysAhead: 11, now: now.addingTimeInterval(-10 * Self.day))
        // One row an hour for ten days, and two rows 40 days old that only the default partition takes.
        try await Self.insertRows(client, count: 240, every: 3_600, newest: now.addingTimeInterval(-60))
        try await Self.insertRows(client, count: 2, every: 60, newest: now.addingTimeInterval(-40 * Self.day))
        #expect(try await Self.count(client, in: PartitionedTable.deliveryLog.defaultPartition) == 2)

        let cutoff = now.addingTimeInterval(-5.5 * Self.day)
        let before = try await partitions.list()
        let oldDays = before.filter { $0.end <= cutoff }
        let expectedDeleted = try await client.query(
            "SELECT count(*) FROM push_notification_logs WHERE created_at < \(cutoff)"
        ).scalar(Int.self)
        let expectedKept = try await Self.count(client) - expectedDeleted
        #expect(oldDays.count >= 4)
        // A prune that stopped between detaching a day and dropping it left that day behind; this one drops it.
        try await client.execute(
            "ALTER TABLE push_notification_logs DETACH PARTITION \(identifier: oldDays[0].name)")

        let pruned = try await DeliveryLogStore(client: client).prune(before: cutoff, chunk: 7)
        #expect(pruned.partitionsDropped == oldDays.count)
        #expect(pruned.logs == expectedDeleted)
        #expect(try await Self.count(client) == expectedKept)
        let oldest = try await client.query("SELECT min(created_at) FROM push_notification_logs").scalar(Date.self)
        #expect(oldest >= cutoff)
        let after = try await partitions.list()
        #expect(after.allSatisfy { $0.end > cutoff })
        #expect(Set(after.map(\.name)) == Set(before.map(\.name)).subtracting(oldDays.map(\.name)))
        #expect(try await Self.count(client, in: PartitionedTable.deliveryLog.defaultPartition) == 0)
        let left = try await client.query(
            "SELECT count(*) FROM pg_class WHERE relname = ANY (\(oldDays.map(\.name)))"
        ).scalar(Int.self)
        #expect(left == 0, "no table of a dropped day is left")

        let again = try await DeliveryLogStore(client: client).prune(before: cutoff)
        #expect(again.logs == 0 && again.partitionsDropped == 0)
    }
}
