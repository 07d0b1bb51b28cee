import Foundation
import HeraldTesting
import Postgres
import Testing

/// New deliveries get version 7 UUIDs whose first 48 bits are the time in milliseconds (migration 0039), so each new
/// id sorts after the ones before it and inserts append to the outbox's primary key.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct TimeOrderedIDsTests {
    @Test func deliveriesGetTimeOrderedIDs() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let before = Date()
        let first = try await db.sendDirect(to: try await db.user("ada", devices: 3))
        try await Task.sleep(for: .milliseconds(5))
        let second = try await db.sendDirect(to: try await db.user("bob", devices: 2))
        let after = Date()
        let ids = try await db.client.query("SELECT id::text FROM deliveries ORDER BY created_at, id").decode(
            String.self)
        #expect(ids.count == 5)
        for id in ids {
            #expect(Array(id)[14] == "7", "version 7: \(id)")
            #expect("89ab".contains(Array(id)[19]), "RFC 9562 variant: \(id)")
            let milliseconds = Double(Int(id.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)!)
            #expect(milliseconds >= (before.timeIntervalSince1970 * 1000).rounded(.down))
            #expect(milliseconds <= (after.timeIntervalSince1970 * 1000).rounded(.up))
        }
        let byNotification = try await db.client.query(
            "SELECT notification_id, max(id::text), min(id::text) FROM deliveries GROUP BY notification_id"
        ).decode((UUID, String, String).self)
        let firstLatest = try #require(byNotification.first { $0.0 == first }?.1)
        let secondEarliest = try #require(byNotification.first { $0.0 == second }?.2)
        #expect(firstLatest < secondEarliest, "a later expansion's ids sort after an earlier one's")
    }
}
