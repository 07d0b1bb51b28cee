import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Migrations 0037 and 0038 give every waiting notification and open delivery the lane the rule gives it and each
/// open delivery its device's app, and leave what finished as it was; going back removes only what they added.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct DeliveryLanesMigrationTests {
    static let lanes = 37

    @Test func waitingWorkGetsItsLaneAndAppAndFinishedWorkStays() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let url = try await TestDatabases.shared.migratedDatabase(Array(migrations.prefix { $0.version < Self.lanes }))
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        try await client.execute(
            """
            WITH app AS (
                INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment)
                VALUES ('shop', 'Shop', 'com.example.shop', 'TEAM123456', 'sandbox') RETURNING id
            ), person AS (
                INSERT INTO users (external_id, email, name) VALUES ('alice', 'alice@example.com', 'Alice')
                RETURNING id
            ), phone AS (
                INSERT INTO device_tokens (user_id, token, platform, environment, app_id)
                SELECT person.id, md5('phone') || md5('phone.'), 'iOS', 'sandbox', app.id FROM person, app
                RETURNING id, user_id
            ), sent AS (
                INSERT INTO notifications (kind, type, content, targets, state, expanded_at)
                VALUES ('direct', 'call', '{"pushType":"voip","priority":10,"payloads":{"default":{}}}', '{}',
                        'expanded', now()),
                       ('direct', 'sale', '{"pushType":"alert","priority":10,"payloads":{"default":{"aps":{}}}}', '{}',
                        'expanded', now()),
                       ('direct', 'code', '{"pushType":"alert","priority":10,"payloads":{"default":{"aps":{"interruption-level":"time-sensitive"}}}}',
                        '{}', 'expanded', now())
                RETURNING id, type
            ), later AS (
                INSERT INTO notifications (kind, type, content, targets, send_at)
                VALUES ('direct', 'test', '{"pushType":"alert","priority":10,"payloads":{"default":{}}}', '{}',
                        now() + interval '1 day'),
                       ('direct', 'digest', '{"pushType":"alert","priority":5,"payloads":{"default":{"aps":{"interruption-level":"critical"}}}}',
                        '{}', now() + interval '1 day')
            )
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, notification_type)
            SELECT sent.id, phone.user_id, phone.id, 'sandbox', sent.type FROM sent, phone
            """)
        let migrator = try Migrator(
            client: client, migrations: Array(migrations.prefix { $0.version <= Self.lanes + 1 }),
            logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version) == [Self.lanes, Self.lanes + 1])

        let deliveries = try await client.query(
            """
            SELECT d.notification_type || ' ' || d.lane || ' ' || (d.app_id = a.id)::text
            FROM deliveries d, apps a WHERE a.external_id = 'shop' ORDER BY 1
            """
        ).decode(String.self)
        #expect(deliveries == ["call immediate true", "code immediate true", "sale bulk true"])
        let scheduled = try await client.query(
            "SELECT type || ' ' || lane FROM notifications WHERE state = 'scheduled' ORDER BY 1"
        ).decode(String.self)
        #expect(scheduled == ["digest bulk", "test immediate"])
        #expect(try await client.query("SELECT delivery_weight::int8 FROM apps").decode(Int.self) == [1])
        await #expect(throws: PostgresError.self) {
            try await client.execute("UPDATE apps SET delivery_weight = 0")
        }
        await #expect(throws: PostgresError.self) {
            try await client.execute("UPDATE deliveries SET lane = 'urgent'")
        }

        try await migrator.down(steps: 2)
        let columns = try await client.query(
            """
            SELECT count(*) FROM information_schema.columns
            WHERE (table_name = 'deliveries' AND column_name IN ('lane', 'app_id'))
               OR (table_name = 'notifications' AND column_name = 'lane')
               OR (table_name = 'apps' AND column_name = 'delivery_weight')
            """
        ).scalar(Int.self)
        #expect(columns == 0)
        #expect(try await client.query("SELECT count(*) FROM deliveries").scalar(Int.self) == 3)
    }
}
