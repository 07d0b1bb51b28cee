import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct SchemaTests {
    private let migrations: [Migration]

    init() throws {
        migrations = try HeraldSchema.migrations(in: try #require(HeraldSchema.defaultDirectory()))
    }

    private func withEmptyDatabase(_ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(
            configuration: try PostgresConfiguration(try await TestDatabases.shared.emptyDatabase()),
            logger: Logger(label: "test"))
        defer { client.shutdown() }
        try await body(client)
    }

    private func dumpSchema(_ client: PostgresClient) async throws -> [String] {
        try await client.query(
            """
            SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
                || coalesce(column_default, '')
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_migrations'
            UNION ALL
            SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> 'schema_migrations'
            UNION ALL
            SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
            FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid <> 'schema_migrations'::regclass
            UNION ALL
            SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
            ORDER BY 1
            """
        ).decode(String.self)
    }

    @Test func migrationsAreNumberedAndEachHasAReverse() {
        #expect(migrations.map(\.version) == Array(1...migrations.count))
        #expect(migrations.allSatisfy { $0.down != nil })
        #expect(migrations.allSatisfy { $0.checksum.count == 64 })
    }

    @Test func upDownUpLeavesTheSameSchema() async throws {
        try await withEmptyDatabase { client in
            let migrator = try Migrator(client: client, migrations: migrations, logger: Logger(label: "test"))
            try await migrator.up()
            let first = try await dumpSchema(client)
            #expect(first.count > 50)
            try await migrator.down(steps: migrations.count)
            #expect(try await dumpSchema(client).isEmpty)
            try await migrator.up()
            #expect(try await dumpSchema(client) == first)
        }
    }

    @Test func everySingleStepReverts() async throws {
        try await withEmptyDatabase { client in
            let migrator = try Migrator(client: client, migrations: migrations, logger: Logger(label: "test"))
            try await migrator.up()
            for expected in migrations.reversed() {
                #expect(try await migrator.down().map(\.version) == [expected.version])
            }
            #expect(try await dumpSchema(client).isEmpty)
        }
    }

    @Test func constraintsRejectBadData() async throws {
        let url = try await TestDatabases.shared.migratedDatabase(migrations)
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        let userID = try await client.query(
            "INSERT INTO users (external_id, email, name) VALUES ('user-1', 'Ada@Example.com', 'Ada') RETURNING id"
        ).scalar(UUID.self)

        func rejects(_ query: PostgresQuery, _ state: SQLState) async {
            let error = await #expect(throws: PostgresError.self) { try await client.execute(query) }
            #expect(error?.sqlState == state, "\(query.sql)")
        }
        await rejects(
            "INSERT INTO users (external_id, email, name) VALUES ('user-2', 'ada@example.COM', 'Twin')",
            .uniqueViolation)
        await rejects(
            "INSERT INTO users (external_id, email, name) VALUES ('bad id!', 'b@example.com', 'B')", .checkViolation)
        await rejects(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            VALUES (\(userID), 'ABCDEF', 'iOS', 'sandbox')
            """, .checkViolation)
        await rejects(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            VALUES (\(userID), \(String(repeating: "ab", count: 32)), 'Android', 'sandbox')
            """, .checkViolation)
        await rejects(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            VALUES (\(userID), \(String(repeating: "ab", count: 32)), 'iOS', 'staging')
            """, .checkViolation)
        await rejects(
            "INSERT INTO api_keys (name, prefix, key_hash, scope) VALUES ('k', 'hk_', 'nothex', 'root')",
            .checkViolation)
        try await client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            VALUES (\(userID), \(String(repeating: "ab", count: 32)), 'iOS', 'sandbox')
            """)
        #expect(
            try await client.query("SELECT push_notifications_enabled AND push_notify_votes FROM users").scalar(
                Bool.self))
    }

    /// A claim changes no indexed column, so PostgreSQL updates the row in place (a HOT update).
    @Test func claimsStayHOTUpdates() async throws {
        let url = try await TestDatabases.shared.migratedDatabase(migrations)
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        let user = try await client.query(
            "INSERT INTO users (external_id, email, name) VALUES ('ada', 'ada@example.com', 'Ada') RETURNING id"
        ).scalar(UUID.self)
        try await client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            SELECT \(user), md5('a' || i) || md5('b' || i), 'iOS', 'sandbox' FROM generate_series(1, 10) AS i
            """)
        let notification = try await client.query(
            """
            INSERT INTO notifications (kind, type, content, targets, state, expanded_at)
            VALUES ('direct', 'custom', '{}', '{}', 'expanded', now()) RETURNING id
            """
        ).scalar(UUID.self)
        try await client.execute(
            """
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment)
            SELECT \(notification), \(user), id, 'sandbox' FROM device_tokens
            """)
        let hot = try await client.withTransaction { connection in
            try await connection.execute(
                """
                UPDATE deliveries SET state = 'sending', claimed_by = 'worker', lease_expires_at = now() + interval '1 minute',
                    attempts = attempts + 1, updated_at = now()
                """)
            return try await connection.query(
                "SELECT pg_stat_get_xact_tuples_hot_updated('deliveries'::regclass)"
            ).scalar(Int.self)
        }
        #expect(hot == 10)
    }

    @Test func deletingAUserDeviceOrProjectReachesTheLog() async throws {
        let url = try await TestDatabases.shared.migratedDatabase(migrations)
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        let users = try await client.query(
            """
            INSERT INTO users (external_id, email, name)
            VALUES ('owner', 'owner@example.com', 'Owner'), ('leaver', 'leaver@example.com', 'Leaver') RETURNING id
            """
        ).decode(UUID.self)
        let (owner, leaver) = (users[0], users[1])
        let project = try await client.query(
            "INSERT INTO projects (external_id, name, owner_id) VALUES ('p', 'P', \(owner)) RETURNING id"
        ).scalar(UUID.self)
        let devices = try await client.query(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            VALUES (\(owner), \(String(repeating: "ab", count: 32)), 'iOS', 'sandbox'),
                (\(leaver), \(String(repeating: "cd", count: 32)), 'iOS', 'sandbox')
            RETURNING id
            """
        ).decode(UUID.self)
        for (user, device) in [(owner, devices[0]), (leaver, devices[1])] {
            try await client.execute(
                """
                INSERT INTO push_notification_logs (user_id, device_token_id, notification_id, delivery_id,
                    notification_type, status, project_id, environment, attempt)
                VALUES (\(user), \(device), gen_random_uuid(), gen_random_uuid(), 'new_feedback', 'sent', \(project),
                    'sandbox', 1)
                """)
        }

        try await client.execute("DELETE FROM device_tokens WHERE id = \(devices[0])")
        try await client.execute("DELETE FROM projects WHERE id = \(project)")
        try await client.execute("DELETE FROM users WHERE id = \(leaver)")

        let rows = try await client.query(
            "SELECT user_id, device_token_id, project_id FROM push_notification_logs"
        ).decode((UUID, UUID?, UUID?).self)
        #expect(rows.count == 1)
        #expect(rows.first?.0 == owner)
        #expect(rows.first?.1 == nil)
        #expect(rows.first?.2 == nil)
    }
}
