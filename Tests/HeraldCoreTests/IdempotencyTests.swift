import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct IdempotencyTests {
    func draft(_ body: String) throws -> NotificationDraft {
        var direct = DirectNotification()
        direct.userIDs = [ExternalID("alice")!]
        direct.alert = Alert(body: body)
        try direct.validate()
        return NotificationDraft(direct: direct)
    }

    @Test func keysReplayForADayThenExpire() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        try await db.user("alice")
        let apiKey = try await APIKeyStore(client: db.client).create(name: "k", scope: .send).key
        let key = try IdempotencyKey(apiKeyID: apiKey.id, key: "k-1", method: "POST", path: "/x", body: Data("a".utf8))
        let first = try await db.notifications.accept(try draft("a"), apiKeyID: apiKey.id, idempotency: key)
        let retry = try await db.notifications.accept(try draft("a"), apiKeyID: apiKey.id, idempotency: key)
        #expect(!first.replayed && retry.replayed && retry.id == first.id)
        let other = try IdempotencyKey(
            apiKeyID: apiKey.id, key: "k-1", method: "POST", path: "/x", body: Data("b".utf8))
        await #expect(throws: DomainError.self) {
            try await db.notifications.accept(try draft("b"), apiKeyID: apiKey.id, idempotency: other)
        }
        #expect(try await db.client.query("SELECT count(*) FROM notifications").scalar(Int.self) == 1)
        // A day later the key is free again, and pruning removes old keys.
        try await db.client.execute("UPDATE idempotency_keys SET created_at = now() - interval '25 hours'")
        let later = try await db.notifications.accept(try draft("b"), apiKeyID: apiKey.id, idempotency: other)
        #expect(!later.replayed && later.id != first.id)
        try await db.client.execute("UPDATE idempotency_keys SET created_at = now() - interval '25 hours'")
        #expect(try await db.notifications.pruneIdempotencyKeys() == 1)
    }

    @Test func concurrentRetriesCreateOneNotification() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        try await db.user("alice")
        let apiKey = try await APIKeyStore(client: db.client).create(name: "k", scope: .send).key
        let key = try IdempotencyKey(apiKeyID: apiKey.id, key: "same", method: "POST", path: "/x", body: Data("a".utf8))
        let draft = try draft("a")
        let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
            for _ in 0..<8 {
                group.addTask { try await db.notifications.accept(draft, apiKeyID: apiKey.id, idempotency: key).id }
            }
            return try await group.reduce(into: Set<UUID>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try await db.client.query("SELECT count(*) FROM notifications").scalar(Int.self) == 1)
    }
}
