import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

/// Migration 0031 gives every vote an app: the one it named, else the default app; votes of an app deleted since
/// go. Going back names the app as text again.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct VotesPerAppMigrationTests {
    static let votesPerApp = 31

    @Test func existingVotesGetTheirAppOrTheDefaultApp() async throws {
        let migrations = try HeraldSchema.migrations(in: Repository.migrations)
        let url = try await TestDatabases.shared.migratedDatabase(
            Array(migrations.prefix { $0.version < Self.votesPerApp }))
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        try await client.execute(
            """
            INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment, is_default)
            VALUES ('default', 'D', 'com.example.d', 'TEAM00000D', 'sandbox', true),
                   ('b', 'B', 'com.example.b', 'TEAM00000B', 'sandbox', false)
            """)
        try await client.execute(
            """
            INSERT INTO feedback_votes (feedback_id, project_external_id, app_external_id, voter_user_id, voter_email)
            VALUES ('f', 'p', NULL, 'u1', NULL), ('f', 'p', 'b', 'u2', NULL), ('f', 'p', 'gone', 'u3', NULL),
                   ('f', 'p', NULL, NULL, 'u4@example.com')
            """)

        let through = Array(migrations.prefix { $0.version <= Self.votesPerApp })
        let migrator = try Migrator(client: client, migrations: through, logger: Logger(label: "test"))
        #expect(try await migrator.up().map(\.version) == [Self.votesPerApp])
        let votes = try await client.query(
            """
            SELECT concat_ws(' ', coalesce(v.voter_user_id, v.voter_email), a.external_id)
            FROM feedback_votes v LEFT JOIN apps a ON a.id = v.app_id ORDER BY 1
            """
        ).decode(String.self)
        #expect(votes == ["u1 default", "u2 b", "u4@example.com default"])
        // The same person may now vote on the same feedback in each app.
        try await client.execute(
            """
            INSERT INTO feedback_votes (feedback_id, project_external_id, app_id, voter_user_id)
            SELECT 'f', 'p', id, 'u1' FROM apps WHERE external_id = 'b'
            """)

        #expect(try await migrator.down().map(\.version) == [Self.votesPerApp])
        let restored = try await client.query(
            """
            SELECT concat_ws(' ', coalesce(voter_user_id, voter_email), app_external_id) FROM feedback_votes
            ORDER BY 1
            """
        ).decode(String.self)
        #expect(restored == ["u1 default", "u2 b", "u4@example.com default"], "one vote per person and feedback")
    }
}
