import Foundation
import HeraldTesting
import Logging
import Postgres
import Testing

@testable import HeraldCore

/// Statistics read per-minute counts (Migrations/0033) and the log rows of each bucket's partial minutes. Whatever
/// the window, buckets and app, they give exactly what counting the log's rows gives: after the migration's backfill,
/// statement batches, a COPY, deletes, an update and a prune.
@Suite(.sharesMachine, .timeLimit(.minutes(3))) struct StatsRollupTests {
    static let rollups = 33

    @Test func rollupsAnswerExactlyWhatTheLogHolds() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let url = try await TestDatabases.shared.migratedDatabase(
            Array(migrations.prefix { $0.version < Self.rollups }))
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        try await Self.makeAudience(client)
        try await Self.writeRows(client, count: 3_000, seed: 0.1)

        let migrator = try Migrator(client: client, migrations: migrations, logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version).contains(Self.rollups))
        let backfilled = try await client.query("SELECT coalesce(sum(count), 0)::int8 FROM push_log_minutes")
            .scalar(Int.self)
        #expect(backfilled > 0)
        try await Self.expectSameAnswers(client, "after the backfill")

        try await Self.writeRows(client, count: 2_000, seed: 0.2)
        try await Self.writeRows(client, count: 2_000, seed: 0.3)
        try await Self.copyRows(client, count: 500)
        try await client.execute(
            "DELETE FROM push_notification_logs WHERE status = 'failed' AND created_at > now() - interval '1 hour'")
        try await client.execute(
            """
            UPDATE push_notification_logs SET apns_reason = 'Unregistered', status = 'token_expired'
            WHERE status = 'failed' AND apns_reason IS NULL AND created_at > now() - interval '1 day'
            """)
        try await Self.expectSameAnswers(client, "after batches, a COPY, deletes and an update")

        let cutoff = Date().addingTimeInterval(-86_400 - 7)
        let pruning = try await DeliveryLogStore(client: client).prune(before: cutoff)
        #expect(pruning.logs > 0)
        try await Self.expectSameAnswers(client, "after a prune")
        // The minute holding the cutoff keeps its rows after it; every minute wholly before the cutoff is gone.
        #expect(
            try await client.query(
                "SELECT count(*) FROM push_log_minutes WHERE minute < date_trunc('minute', \(cutoff)::timestamptz, 'UTC')"
            ).scalar(Int.self) == 0, "no minute older than the cutoff is left")
    }

    /// A log row carries its device's app (Migrations/0047). Deleting the device detaches its rows (device_token_id
    /// becomes NULL); their minutes keep their app, and every push still counts once.
    @Test func aDeletedDevicesPushesKeepTheirAppAndCountOnce() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let url = try await TestDatabases.shared.migratedDatabase(migrations)
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        try await Self.makeAudience(client)
        // Whole minutes ago, so statistics read them from the per-minute counts, not from the log.
        let (device, app) = try await Self.copyRows(
            client, count: 40, sentAt: Date().addingTimeInterval(-600), carryingApp: true)
        let logs = DeliveryLogStore(client: client)
        func sent(_ app: String?) async throws -> Int {
            let stats = try await logs.stats(window: .seconds(3_600), app: app)
            return stats.types.reduce(0) { $0 + $1.byState["sent", default: 0] }
        }
        #expect(try await sent(nil) == 40)
        #expect(try await sent("ra") == 40)

        try await client.execute("DELETE FROM device_tokens WHERE id = \(device)")
        #expect(
            try await client.query(
                "SELECT count(*) FROM push_notification_logs WHERE device_token_id IS NULL AND app_id = \(app)"
            ).scalar(Int.self) == 40, "the rows stay, detached from the device")
        #expect(try await sent(nil) == 40, "counted once, not again under no app")
        #expect(try await sent("ra") == 40, "still the app's")
    }

    /// Apps `ra` and `rb`, each with users' devices, and a device of no app.
    static func makeAudience(_ client: PostgresClient) async throws {
        try await client.execute(
            """
            INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment)
            VALUES ('ra', 'A', 'com.example.ra', 'TEAM0000RA', 'sandbox'),
                   ('rb', 'B', 'com.example.rb', 'TEAM0000RB', 'sandbox')
            """)
        try await client.execute(
            """
            INSERT INTO users (external_id, email, name)
            SELECT 'rollup-' || i, 'rollup-' || i || '@example.com', 'R' FROM generate_series(1, 6) AS i
            """)
        try await client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment, topic, app_id)
            SELECT u.id, md5(u.external_id || d) || md5(d || u.external_id), 'iOS', 'sandbox', NULL,
                (SELECT a.id FROM apps a WHERE a.external_id = CASE d % 3 WHEN 0 THEN 'ra' WHEN 1 THEN 'rb' END)
            FROM users u CROSS JOIN generate_series(0, 2) AS d WHERE u.external_id LIKE 'rollup-%'
            """)
    }

    /// `count` log rows in one statement: any device or none, three types, every state, reasons or none, over the
    /// last three days and a little ahead, some on whole minutes.
    static func writeRows(_ client: PostgresClient, count: Int, seed: Double) async throws {
        try await client.withTransaction { connection in
            try await connection.execute("SELECT setseed(\(seed))")
            try await connection.execute(
                """
                WITH devices AS (SELECT array_agg(id) AS ids FROM device_tokens),
                picked AS (
                    SELECT i, floor(random() * 20)::int AS device, floor(random() * 6)::int AS state,
                        floor(random() * 4)::int AS reason, floor(random() * 3)::int AS type,
                        random() AS at, random() < 0.1 AS whole
                    FROM generate_series(1, \(count)) AS i
                )
                INSERT INTO push_notification_logs (
                    user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                    attempt, apns_reason, created_at)
                SELECT (SELECT id FROM users WHERE external_id = 'rollup-1'), devices.ids[p.device + 1],
                    gen_random_uuid(), gen_random_uuid(), (ARRAY['release', 'digest', 'alert'])[p.type + 1],
                    (ARRAY['sent', 'failed', 'token_expired', 'retrying', 'expired', 'canceled'])[p.state + 1],
                    'sandbox', 1, (ARRAY['BadDeviceToken', 'Unregistered', 'TooManyRequests', NULL])[p.reason + 1],
                    CASE WHEN p.whole THEN date_trunc('minute', now() - p.at * interval '3 days')
                        ELSE now() - p.at * interval '3 days' + interval '2 minutes' END
                FROM picked AS p CROSS JOIN devices
                """)
        }
    }

    /// `count` log rows through COPY, as the delivery engine writes them: sent now (or at `sentAt`) to a device of the
    /// first app, with that app in each row when `carryingApp` (Migrations/0047). Returns the device and its app.
    @discardableResult
    static func copyRows(
        _ client: PostgresClient, count: Int, sentAt: Date? = nil, carryingApp: Bool = false
    ) async throws -> (device: UUID, app: UUID) {
        let user = try await client.query("SELECT id FROM users WHERE external_id = 'rollup-2'").scalar(UUID.self)
        let (device, app) = try await client.query(
            "SELECT d.id, d.app_id FROM device_tokens d JOIN apps a ON a.id = d.app_id WHERE a.external_id = 'ra' LIMIT 1"
        ).decode((UUID, UUID).self)[0]
        var columns = [
            "user_id", "device_token_id", "notification_id", "delivery_id", "notification_type", "status",
            "environment", "attempt",
        ]
        if sentAt != nil { columns.append("created_at") }
        if carryingApp { columns.append("app_id") }
        var rows = PostgresCopyRows(columns: columns)
        for _ in 0..<count {
            try rows.appendRow { row in
                row.append(user)
                row.append(device)
                row.append(UUID())
                row.append(UUID())
                row.append("release")
                row.append("sent")
                row.append("sandbox")
                row.append(Int32(1))
                if let sentAt { row.append(sentAt) }
                if carryingApp { row.append(app) }
            }
        }
        try await client.withConnection { connection in
            _ = try await connection.copy(rows, into: "push_notification_logs")
        }
        return (device, app)
    }

    static func expectSameAnswers(_ client: PostgresClient, _ moment: String) async throws {
        let logs = DeliveryLogStore(client: client)
        let now = Date()
        for window in [Duration.seconds(600), .seconds(3_600), .seconds(86_400), .seconds(3 * 86_400)] {
            for buckets in [nil, 7, 500] {
                for app in [nil, "ra", "rb"] {
                    let answer = try await logs.stats(window: window, buckets: buckets, app: app, now: now)
                    let counted = try await Self.countedFromTheLog(
                        client, answer: answer, buckets: buckets != nil, app: app)
                    #expect(
                        answer == counted, "\(moment): window \(window), buckets \(buckets ?? 0), app \(app ?? "-")")
                }
            }
        }
    }

    /// What the log's rows say for `answer`'s buckets, counted row by row.
    static func countedFromTheLog(
        _ client: PostgresClient, answer: DeliveryStats, buckets: Bool, app: String?
    ) async throws -> DeliveryStats {
        let slices = answer.series?.map { ($0.start, $0.end) } ?? [(answer.since, answer.until)]
        var byType: [String: [String: Int]] = [:]
        var byReason: [DeliveryStats.FailureReason] = []
        var reasons: [String: [String?: Int]] = [:]
        var series: [DeliveryStats.Bucket] = []
        for (index, (start, end)) in slices.enumerated() {
            let last = index == slices.count - 1
            let rows = try await client.query(
                """
                SELECT l.notification_type, l.status, l.apns_reason, count(*)::int8
                FROM push_notification_logs l LEFT JOIN device_tokens d ON d.id = l.device_token_id
                LEFT JOIN apps a ON a.id = d.app_id
                WHERE l.created_at >= \(start) AND (l.created_at < \(end) OR (\(last) AND l.created_at = \(end)))
                    AND l.status <> 'retrying' AND (\(app)::text IS NULL OR a.external_id = \(app))
                GROUP BY 1, 2, 3
                """
            ).decode((String, String, String?, Int).self)
            var byState: [String: Int] = [:]
            for (type, state, reason, count) in rows {
                byType[type, default: [:]][state, default: 0] += count
                reasons[state, default: [:]][reason, default: 0] += count
                byState[state, default: 0] += count
            }
            series.append(DeliveryStats.Bucket(start: start, end: end, byState: byState))
        }
        for (state, counts) in reasons where DeliveryStats.failureStates.contains(state) {
            for (reason, count) in counts { byReason.append(.init(state: state, reason: reason, count: count)) }
        }
        return DeliveryStats(
            since: answer.since, until: answer.until,
            types: byType.keys.sorted().map { DeliveryStats.TypeStats(type: $0, byState: byType[$0]!) },
            failureReasons: Array(
                byReason.sorted(by: DeliveryStats.FailureReason.commonestFirst).prefix(DeliveryStats.maximumReasons)),
            series: buckets ? series : nil)
    }
}
