import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Migration 0023 turns a populated log into the partitioned one and back without losing or changing a row.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct LogPartitionMigrationTests {
    static let partitioned = 23

    /// Every row as text, in id order: equal digests mean the same rows with the same values.
    static func digest(_ client: PostgresClient) async throws -> (count: Int, digest: String) {
        let row = try await client.query(
            """
            SELECT count(*), coalesce(md5(string_agg(l::text, '|' ORDER BY l.id)), '')
            FROM (
                SELECT id, user_id, device_token_id, notification_id, delivery_id, notification_type, status,
                    feedback_id, project_id, payload, error_message, apns_id, environment, attempt, http_status,
                    apns_reason, latency_ms, created_at
                FROM push_notification_logs
            ) AS l
            """
        ).decode((Int, String).self)
        return try #require(row.first)
    }

    @Test func upAndDownKeepEveryRow() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let before = Array(migrations.prefix { $0.version < Self.partitioned })
        #expect(migrations.contains { $0.version == Self.partitioned })
        let url = try await TestDatabases.shared.migratedDatabase(before)
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }

        // Rows on each of the 45 UTC days before today but every seventh (3, 10, …, 45 days back: 38 days with rows),
        // 27 rows a day 53 minutes apart from midnight, every column used, from two users. Days are UTC days, so
        // which days have rows does not depend on the time of the run.
        try await client.execute(
            """
            INSERT INTO users (external_id, email, name)
            VALUES ('ada', 'ada@example.com', 'Ada'), ('bob', 'bob@example.com', 'Bob')
            """)
        try await client.execute(
            """
            INSERT INTO push_notification_logs (
                user_id, device_token_id, notification_id, delivery_id, notification_type, status, feedback_id,
                project_id, payload, error_message, apns_id, environment, attempt, http_status, apns_reason,
                latency_ms, created_at)
            SELECT (SELECT id FROM users WHERE external_id = CASE WHEN i % 3 = 0 THEN 'ada' ELSE 'bob' END),
                CASE WHEN i % 4 <> 0 THEN gen_random_uuid() END, gen_random_uuid(), gen_random_uuid(),
                'new_feedback', (ARRAY['sent', 'failed', 'retrying', 'token_expired'])[i % 4 + 1],
                CASE WHEN i % 2 = 0 THEN 'fb-' || i END, NULL,
                jsonb_build_object('aps', jsonb_build_object('alert', 'row ' || i)),
                CASE WHEN i % 4 = 1 THEN 'refused' END, gen_random_uuid(),
                CASE WHEN i % 5 = 0 THEN 'sandbox' ELSE 'production' END, i % 3 + 1,
                CASE WHEN i % 4 = 1 THEN 410 ELSE 200 END, CASE WHEN i % 4 = 1 THEN 'Unregistered' END,
                (i % 97) * 0.5,
                date_trunc('day', now(), 'UTC') - make_interval(days => (i - 1) / 27 + 1)
                    + make_interval(mins => (i - 1) % 27 * 53)
            FROM generate_series(1, 1200) AS i
            WHERE ((i - 1) / 27 + 1) % 7 <> 3
            """)
        let old = try await Self.digest(client)
        #expect(old.count > 1000)

        let through = Array(migrations.prefix { $0.version <= Self.partitioned })
        let migrator = try Migrator(client: client, migrations: through, logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version) == [Self.partitioned])
        #expect(try await Self.digest(client) == old)
        #expect(
            try await client.query("SELECT count(*) FROM push_notification_logs_default").scalar(Int.self) == 0,
            "every day that had rows has its partition")
        let partitions = try await LogPartitions(client: client).list()
        let today = Date()
        #expect(partitions.contains { $0.start <= today && today < $0.end })
        #expect(partitions.contains { $0.start > today.addingTimeInterval(6 * 86_400) }, "a week made ahead")
        #expect(partitions.count == 38 + 8, "a day with rows, today and a week ahead; none for a day without rows")

        #expect(try await migrator.down().map(\.version) == [Self.partitioned])
        #expect(try await Self.digest(client) == old)
        #expect(
            try await client.query(
                "SELECT relkind::text FROM pg_class WHERE oid = 'push_notification_logs'::regclass"
            ).scalar(String.self) == "r")
    }
}
