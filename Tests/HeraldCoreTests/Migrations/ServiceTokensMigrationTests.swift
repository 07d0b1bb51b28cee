import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Migration 0034 lets a device keep a token per push service and 0035 gives log rows Apple's apns-unique-id, keeping
/// every existing device, Live Activity token, suppression and log row; going back removes only what they added.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct ServiceTokensMigrationTests {
    static let serviceTokens = 34

    static func rows(_ client: PostgresClient) async throws -> [String] {
        try await client.query(
            """
            SELECT concat_ws(' ', d.kind, d.token, d.is_active, p.token) FROM device_tokens d
            LEFT JOIN device_tokens p ON p.id = d.parent_device_id ORDER BY 1
            """
        ).decode(String.self)
    }

    @Test func existingDevicesStayAndServiceTokensComeAndGo() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let url = try await TestDatabases.shared.migratedDatabase(
            Array(migrations.prefix { $0.version < Self.serviceTokens }))
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        try await client.execute(
            """
            WITH person AS (
                INSERT INTO users (external_id, email, name) VALUES ('alice', 'alice@example.com', 'Alice')
                RETURNING id
            ), phone AS (
                INSERT INTO device_tokens (user_id, token, platform, environment)
                SELECT id, md5('phone') || md5('phone.'), 'iOS', 'sandbox' FROM person
                RETURNING id, user_id
            )
            INSERT INTO device_tokens (user_id, token, platform, environment, kind, parent_device_id, attributes_type)
            SELECT user_id, md5('start') || md5('start.'), 'iOS', 'sandbox', 'push_to_start', id, 'Score' FROM phone
            """)
        let before = try await Self.rows(client)
        #expect(before.count == 2)

        let migrator = try Migrator(
            client: client, migrations: Array(migrations.prefix { $0.version <= Self.serviceTokens + 1 }),
            logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version) == [Self.serviceTokens, Self.serviceTokens + 1])
        #expect(try await Self.rows(client) == before)

        // A VoIP token of the phone; a second one for the same device and kind is refused.
        let insertVoIP: (String) -> PostgresQuery = { seed in
            """
            INSERT INTO device_tokens (user_id, token, platform, environment, kind, parent_device_id)
            SELECT user_id, md5(\(seed)) || md5(\(seed) || '.'), 'iOS', 'sandbox', 'voip', id
            FROM device_tokens WHERE kind = 'device'
            """
        }
        try await client.execute(insertVoIP("voip"))
        await #expect(throws: PostgresError.self) { try await client.execute(insertVoIP("voip-2")) }
        try await client.execute(
            """
            WITH n AS (
                INSERT INTO notifications (kind, type, content, targets, state, expanded_at, send_at)
                VALUES ('direct', 'custom', '{}'::jsonb, '{}'::jsonb, 'expanded', now(), now()) RETURNING id
            )
            INSERT INTO notification_suppressions (notification_id, user_id, reason)
            SELECT n.id, u.id, 'no_voip_token' FROM n CROSS JOIN users u
            """)

        #expect(try await migrator.down(steps: 2).map(\.version) == [Self.serviceTokens + 1, Self.serviceTokens])
        #expect(try await Self.rows(client) == before)
        #expect(try await client.query("SELECT count(*) FROM notification_suppressions").scalar(Int.self) == 0)
    }
}
