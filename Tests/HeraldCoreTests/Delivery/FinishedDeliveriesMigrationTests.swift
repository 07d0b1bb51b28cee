import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Migration 0029 moves finished deliveries out of the outbox: each keeps a final log row (one is written for those
/// canceled without one), the open ones stay, and a notification's counts do not change; going back restores them.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct FinishedDeliveriesMigrationTests {
    static let leavesOutbox = 29

    /// Finished deliveries as (id, state, attempts, reason, finished_at), in id order.
    static func finished(_ client: PostgresClient) async throws -> [String] {
        try await client.query(
            """
            SELECT concat_ws(' ', id, state, attempts, last_reason, finished_at) FROM deliveries
            WHERE finished_at IS NOT NULL ORDER BY id
            """
        ).decode(String.self)
    }

    @Test func finishedDeliveriesBecomeLogRowsAndComeBack() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let before = Array(migrations.prefix { $0.version < Self.leavesOutbox })
        let url = try await TestDatabases.shared.migratedDatabase(before)
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }

        // One notification to 40 devices: 10 still pending, 10 sent and 10 failed after a retry (the engine logged
        // every attempt), 10 canceled by the API (never logged).
        let notification = try await client.query(
            """
            WITH u AS (
                INSERT INTO users (external_id, email, name) VALUES ('ada', 'ada@example.com', 'Ada') RETURNING id
            ), t AS (
                INSERT INTO device_tokens (user_id, token, platform, environment)
                SELECT u.id, md5('a' || i) || md5('b' || i), 'iOS', 'sandbox' FROM u, generate_series(1, 40) AS i
                RETURNING id, user_id
            ), n AS (
                INSERT INTO notifications (kind, type, content, targets, state, expanded_at, created_at)
                VALUES ('direct', 'release', '{}', '{}', 'expanded', now(), now() - interval '1 hour') RETURNING id
            ), d AS (
                INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, notification_type)
                SELECT n.id, t.user_id, t.id, 'sandbox', 'release' FROM n, t RETURNING id
            )
            SELECT id FROM n
            """
        ).scalar(UUID.self)
        try await client.execute(
            """
            WITH ranked AS (
                SELECT id, row_number() OVER (ORDER BY id) AS i FROM deliveries
            )
            UPDATE deliveries AS d
            SET state = o.state, attempts = o.attempts, last_status = o.status, last_reason = o.reason,
                finished_at = now() - make_interval(mins => r.i::int), updated_at = now()
            FROM ranked AS r, LATERAL (
                SELECT * FROM (VALUES
                    (1, 'sent', 1, 200, NULL), (2, 'failed', 2, 400, 'BadTopic'), (3, 'canceled', 0, NULL,
                    'NotificationCanceled')
                ) AS v (bucket, state, attempts, status, reason)
                WHERE v.bucket = (r.i - 1) / 10
            ) AS o
            WHERE d.id = r.id
            """)
        try await client.execute(
            """
            INSERT INTO push_notification_logs (
                user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                attempt, http_status, apns_reason, created_at)
            SELECT d.user_id, d.device_token_id, d.notification_id, d.id, 'release', a.status, 'sandbox', a.attempt,
                a.http_status, a.reason, d.finished_at - a.earlier
            FROM deliveries AS d CROSS JOIN LATERAL (
                SELECT d.state, d.attempts, d.last_status, d.last_reason, interval '0'
                UNION ALL SELECT 'retrying', 1, 503, 'ServiceUnavailable', interval '1 second' WHERE d.state = 'failed'
            ) AS a (status, attempt, http_status, reason, earlier)
            WHERE d.state IN ('sent', 'failed')
            """)
        let finishedBefore = try await Self.finished(client)
        #expect(finishedBefore.count == 30)
        #expect(try await client.query("SELECT count(*) FROM push_notification_logs").scalar(Int.self) == 30)

        let through = Array(migrations.prefix { $0.version <= Self.leavesOutbox })
        let migrator = try Migrator(client: client, migrations: through, logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version) == [Self.leavesOutbox])
        #expect(
            try await client.query("SELECT state, count(*) FROM deliveries GROUP BY state").decode((String, Int).self)
                .map { "\($0) \($1)" } == ["pending 10"], "only open deliveries stay")
        let canceled = try await client.query(
            """
            SELECT concat_ws(' ', delivery_id, status, attempt, apns_reason, created_at) FROM push_notification_logs
            WHERE status = 'canceled' ORDER BY delivery_id
            """
        ).decode(String.self)
        #expect(
            canceled == finishedBefore.filter { $0.contains(" canceled ") },
            "each canceled delivery got its log row, dated when it finished")
        #expect(try await client.query("SELECT count(*) FROM push_notification_logs").scalar(Int.self) == 40)
        // Counted as today's code counts them, on today's schema.
        let everything = try Migrator(client: client, migrations: migrations, logger: Logger(label: "test"))
        let later = try await everything.up().count
        let status = try #require(try await NotificationStore(client: client).status(notification, in: .everyApp))
        #expect(status.deliveries == ["pending": 10, "sent": 10, "failed": 10, "canceled": 10])
        try await everything.down(steps: later)

        #expect(try await migrator.down().map(\.version) == [Self.leavesOutbox])
        #expect(try await Self.finished(client) == finishedBefore, "finished deliveries come back as they were")
        #expect(try await client.query("SELECT count(*) FROM deliveries").scalar(Int.self) == 40)
    }
}

extension FinishedDeliveriesMigrationTests {
    /// While replicas are rolled over, one of the earlier release finishes deliveries in place: a delivery list and
    /// its counts take those rows as they are, and prune moves them into the log (logging the canceled one, which
    /// that release did not), after which the counts are the same.
    @Test func pruneMovesDeliveriesFinishedInPlaceIntoTheLog() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let notification = try await db.sendDirect(to: try await db.user("ada", devices: 3))
        // As the earlier release recorded them: one sent (with its log row), one canceled by the API (without).
        try await db.client.execute(
            """
            WITH ranked AS (
                SELECT id, row_number() OVER (ORDER BY id) AS i FROM deliveries WHERE notification_id = \(notification)
            ), finished AS (
                UPDATE deliveries AS d
                SET state = CASE r.i WHEN 1 THEN 'sent' ELSE 'canceled' END,
                    attempts = CASE r.i WHEN 1 THEN 1 ELSE 0 END,
                    last_reason = CASE r.i WHEN 2 THEN 'NotificationCanceled' END, finished_at = now()
                FROM ranked AS r WHERE d.id = r.id AND r.i <= 2
                RETURNING d.*
            )
            INSERT INTO push_notification_logs (
                user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment, attempt)
            SELECT user_id, device_token_id, notification_id, id, 'custom', state, environment, attempts
            FROM finished WHERE state = 'sent'
            """)
        let counts: [String: Int] = ["pending": 1, "sent": 1, "canceled": 1]
        #expect(try await db.notifications.status(notification, in: .everyApp)?.deliveries == counts)

        let pruned = try await DeliveryLogStore(client: db.client).prune(before: Date(timeIntervalSince1970: 0))
        #expect(pruned.deliveriesMoved == 2)
        #expect(pruned.logs == 0)
        #expect(try await db.deliveries(notification).count == 1, "only the open delivery stays")
        #expect(try await db.logged(notification).map(\.1).sorted() == ["canceled", "sent"])
        #expect(try await db.notifications.status(notification, in: .everyApp)?.deliveries == counts)
        let listed = try await DeliveryLogStore(client: db.client).deliveries(of: notification, in: .everyApp)
        #expect(listed?.deliveries.map(\.state).sorted() == ["canceled", "pending", "sent"])
        #expect(try await DeliveryLogStore(client: db.client).prune(before: Date()).deliveriesMoved == 0)
    }
}
