import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

extension Networked {
    /// The log listing behind `herald logs`: filters, newest first, cursor paging, pruning.
    @Suite struct DeliveryLogStoreTests {
        @Test func filtersPagesAndPrunes() async throws {
            let client = PostgresClient(
                configuration: try PostgresConfiguration(try await TestDatabases.shared.heraldDatabase()),
                logger: Logger(label: "test.logs"))
            defer { client.shutdown() }
            let alice = try await client.query(
                """
                INSERT INTO users (external_id, email, name) VALUES ('alice', 'alice@example.com', 'Alice')
                RETURNING id
                """
            ).scalar(UUID.self)
            let bob = try await client.query(
                "INSERT INTO users (external_id, email, name) VALUES ('bob', 'bob@example.com', 'Bob') RETURNING id"
            ).scalar(UUID.self)
            let notification = UUID()
            try await client.execute(
                """
                INSERT INTO push_notification_logs
                    (user_id, notification_id, delivery_id, notification_type, status, environment, attempt,
                     apns_reason, created_at)
                SELECT CASE WHEN i % 2 = 0 THEN \(alice) ELSE \(bob) END, \(notification), gen_random_uuid(),
                    'new_feedback', CASE WHEN i % 5 = 0 THEN 'token_expired' ELSE 'sent' END, 'sandbox', 1,
                    CASE WHEN i % 5 = 0 THEN 'Unregistered' END, now() - make_interval(mins => i)
                FROM generate_series(1, 40) AS i
                """)
            let store = DeliveryLogStore(client: client)
            let alices = try await store.list(DeliveryLogFilter(userID: "alice"), limit: 100)
            #expect(alices.count == 20)
            #expect(alices.allSatisfy { $0.userID == "alice" })
            #expect(alices.map(\.createdAt) == alices.map(\.createdAt).sorted(by: >))
            let dead = try await store.list(
                DeliveryLogFilter(status: .tokenExpired, reason: "Unregistered"), limit: 100)
            #expect(dead.count == 8)
            let recent = try await store.list(
                DeliveryLogFilter(since: Date(timeIntervalSinceNow: -10.5 * 60)), limit: 100)
            #expect(recent.count == 10)

            let firstPage = try await store.list(DeliveryLogFilter(notificationID: notification), limit: 15)
            let secondPage = try await store.list(
                DeliveryLogFilter(notificationID: notification), limit: 15, before: firstPage.last?.cursor)
            #expect(firstPage.count == 15)
            #expect(secondPage.count == 15)
            #expect(Set(firstPage.map(\.id)).isDisjoint(with: secondPage.map(\.id)))
            #expect(firstPage.last!.createdAt > secondPage.first!.createdAt)

            let pruned = try await store.prune(before: Date(timeIntervalSinceNow: -30.5 * 60), chunk: 4)
            #expect(pruned.logs == 10)
            #expect(try await client.query("SELECT count(*) FROM push_notification_logs").scalar(Int.self) == 30)
        }
    }
}
