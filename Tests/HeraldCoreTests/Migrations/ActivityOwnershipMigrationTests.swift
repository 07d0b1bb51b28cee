import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Migration 0030 binds every Live Activity id to one app and user, keeping existing rows: where several users or
/// apps reported an id, the most recent report wins and the others' tokens go (with what waited for them); from then
/// on a token of an unbound id cannot be stored. Going back keeps the tokens that stayed.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct ActivityOwnershipMigrationTests {
    static let ownership = 30

    /// Activity tokens as "activity user app", sorted.
    static func tokens(_ client: PostgresClient) async throws -> [String] {
        try await client.query(
            """
            SELECT concat_ws(' ', d.activity_id, u.external_id, a.external_id) FROM device_tokens d
            JOIN users u ON u.id = d.user_id JOIN apps a ON a.id = d.app_id
            WHERE d.kind = 'activity' ORDER BY 1
            """
        ).decode(String.self)
    }

    @Test func theMostRecentReportOfASharedIdWinsAndTheOthersGo() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let url = try await TestDatabases.shared.migratedDatabase(
            Array(migrations.prefix { $0.version < Self.ownership }))
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }

        // Devices: alice's phone and tablet and bob's phone in app a, alice's phone in app b.
        try await client.execute(
            """
            WITH apps AS (
                INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment)
                VALUES ('a', 'A', 'com.example.a', 'TEAM00000A', 'sandbox'),
                       ('b', 'B', 'com.example.b', 'TEAM00000B', 'sandbox')
                RETURNING id, external_id
            ), people AS (
                INSERT INTO users (external_id, email, name)
                VALUES ('alice', 'alice@example.com', 'Alice'), ('bob', 'bob@example.com', 'Bob')
                RETURNING id, external_id
            )
            INSERT INTO device_tokens (user_id, token, platform, environment, app_id, app_version)
            SELECT p.id, md5(d.name) || md5(d.name || '.'), 'iOS', 'sandbox', a.id, d.name
            FROM (VALUES ('alice', 'a', 'alice-phone'), ('alice', 'a', 'alice-tablet'), ('bob', 'a', 'bob-phone'),
                         ('alice', 'b', 'alice-b')) AS d (person, app, name)
            JOIN people p ON p.external_id = d.person JOIN apps a ON a.external_id = d.app
            """)
        // "shared": alice's two devices, then bob's, most recently. "apps": alice in app a, more recently than in
        // app b. "solo": alice alone, on two devices.
        try await client.execute(
            """
            INSERT INTO device_tokens (
                user_id, token, platform, environment, topic, app_id, kind, parent_device_id, attributes_type,
                activity_id, registered_at)
            SELECT p.user_id, md5(r.activity || p.app_version) || md5(r.activity), p.platform, p.environment, p.topic,
                p.app_id, 'activity', p.id, 'Order', r.activity, now() - make_interval(mins => r.age)
            FROM (VALUES ('shared', 'alice-phone', 30), ('shared', 'alice-tablet', 20), ('shared', 'bob-phone', 10),
                         ('apps', 'alice-phone', 10), ('apps', 'alice-b', 20),
                         ('solo', 'alice-phone', 5), ('solo', 'alice-tablet', 5)) AS r (activity, device, age)
            JOIN device_tokens p ON p.app_version = r.device AND p.kind = 'device'
            """)
        // An update of "shared" waits for alice's phone.
        try await client.execute(
            """
            WITH n AS (
                INSERT INTO notifications (kind, type, content, targets, state, expanded_at)
                VALUES ('direct', 'liveactivity', '{}', '{"activityId": "shared"}', 'expanded', now()) RETURNING id
            )
            INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, notification_type)
            SELECT n.id, d.user_id, d.id, 'sandbox', 'liveactivity' FROM n, device_tokens d
            WHERE d.activity_id = 'shared'
            """)
        let before = try await Self.tokens(client)
        #expect(before.count == 7)

        let through = Array(migrations.prefix { $0.version <= Self.ownership })
        let migrator = try Migrator(client: client, migrations: through, logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version) == [Self.ownership])
        let after = [
            "apps alice a", "shared bob a", "solo alice a", "solo alice a",
        ]
        #expect(try await Self.tokens(client) == after)
        let owners = try await client.query(
            """
            SELECT concat_ws(' ', o.activity_id, u.external_id, a.external_id) FROM live_activities o
            JOIN users u ON u.id = o.user_id JOIN apps a ON a.id = o.app_id ORDER BY 1
            """
        ).decode(String.self)
        #expect(owners == ["apps alice a", "shared bob a", "solo alice a"])
        let waiting = try await client.query(
            """
            SELECT u.external_id FROM deliveries d JOIN users u ON u.id = d.user_id ORDER BY 1
            """
        ).decode(String.self)
        #expect(waiting == ["bob"], "what waited for a removed token went with it")

        // No token of an id without its binding can be stored any more.
        await #expect(throws: PostgresError.self) {
            try await client.execute(
                """
                INSERT INTO device_tokens (
                    user_id, token, platform, environment, app_id, kind, parent_device_id, attributes_type,
                    activity_id)
                SELECT user_id, md5('unbound') || md5('unbound.'), platform, environment, app_id, 'activity', id,
                    'Order', 'unbound'
                FROM device_tokens WHERE app_version = 'alice-phone'
                """)
        }

        #expect(try await migrator.down().map(\.version) == [Self.ownership])
        #expect(try await Self.tokens(client) == after)
        #expect(try await client.query("SELECT to_regclass('live_activities') IS NULL").scalar(Bool.self))
    }
}
