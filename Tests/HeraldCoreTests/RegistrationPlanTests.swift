import Foundation
import HeraldTesting
import Postgres
import Testing

@testable import HeraldCore

/// A batch of registrations trims its users' devices through their indexes, so its cost follows the batch and not
/// the table: joined to all of device_tokens, a batch of 256 users was planned as a scan of every device, and
/// registrations slowed down as devices accumulated.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct RegistrationPlanTests {
    @Test func aBatchTrimsItsUsersDevicesThroughTheirIndexes() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        try await db.client.execute(
            """
            INSERT INTO users (external_id, email, name)
            SELECT 'plan-' || i, 'plan-' || i || '@example.com', 'P' FROM generate_series(1, 5000) AS i
            """)
        try await db.client.execute(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment)
            SELECT u.id, md5(u.external_id || d) || md5(d || u.external_id), 'iOS', 'sandbox'
            FROM users u CROSS JOIN generate_series(1, 8) AS d WHERE u.external_id LIKE 'plan-%'
            """)
        try await db.client.execute("ANALYZE users")
        try await db.client.execute("ANALYZE device_tokens")
        let batch = (1...256).map { "plan-\($0 * 19)" }
        let trim = DeviceStore.trimDevices(of: batch, to: RegistrationLimits().devicesPerUser)
        let plan = try await db.client.query(PostgresQuery(unsafeSQL: "EXPLAIN " + trim.sql, bindings: trim.bindings))
            .decode(String.self).joined(separator: "\n")
        #expect(!plan.contains("Seq Scan on device_tokens"), "plan:\n\(plan)")
        #expect(!plan.contains("Seq Scan on users"), "plan:\n\(plan)")
    }
}
