import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

/// The operations view: what waits by lane and state, how long the oldest due delivery waited, the rate per app, and
/// each signing key and delivering process.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct OutboxAPITests {
    static func count(_ answer: API.Answer, lane: String, state: String) -> JSONValue? {
        guard case .array(let entries)? = answer.json?["deliveries"] else { return nil }
        return entries.first { $0["lane"] == .string(lane) && $0["state"] == .string(state) }?["count"]
    }

    static func list(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { items } else { [] }
    }

    @Test func showsWhatWaitsAndWhoSendsIt() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            for _ in 0..<4 { _ = try await InteractionsAPITests.device(api, of: "alice") }
            let bulk = try await api.call(
                .post, "/api/v1/notifications", headers: harness.admin(),
                json: #"{"userIds":["alice"],"alert":{"body":"bulk"}}"#)
            _ = try await harness.waitForExpansion(try #require(bulk.json?["id"]?.stringValue))
            let immediate = try await api.call(
                .post, "/api/v1/notifications", headers: harness.admin(),
                json: #"{"userIds":["alice"],"alert":{"body":"now"},"lane":"immediate"}"#)
            _ = try await harness.waitForExpansion(try #require(immediate.json?["id"]?.stringValue))
            let later = try await api.call(
                .post, "/api/v1/notifications", headers: harness.admin(),
                json: #"{"userIds":["alice"],"alert":{"body":"later"},"sendAt":"2099-01-01T00:00:00Z"}"#)
            #expect(later.status == .accepted)
            // Of the four bulk deliveries: one tried once and due again, one claimed by a running process, one due
            // for 30 seconds; the immediate ones wait untouched.
            try await harness.client.execute(
                """
                WITH bulk AS (
                    SELECT id, row_number() OVER (ORDER BY id) AS n FROM deliveries WHERE lane = 'bulk')
                UPDATE deliveries d SET
                    attempts = CASE WHEN b.n IN (1, 2) THEN 1 ELSE 0 END,
                    state = CASE WHEN b.n = 2 THEN 'sending' ELSE d.state END,
                    claimed_by = CASE WHEN b.n = 2 THEN 'worker-1' END,
                    lease_expires_at = CASE WHEN b.n = 2 THEN now() + interval '1 minute' END,
                    next_attempt_at = CASE WHEN b.n = 3 THEN now() - interval '30 seconds' ELSE d.next_attempt_at END
                FROM bulk b WHERE d.id = b.id
                """)
            let workers = DeliveryWorkerStore(client: harness.client)
            try await workers.record(
                .init(
                    worker: "worker-1", host: "host-a", startedAt: Date(), inFlight: 7, pausedUntil: nil,
                    pauseReason: nil, consecutivePauses: 0))
            try await workers.record(
                .init(
                    worker: "worker-2", host: "host-b", startedAt: Date(), inFlight: 0,
                    pausedUntil: Date().addingTimeInterval(60), pauseReason: "service refused", consecutivePauses: 2))
            try await harness.client.execute(
                "UPDATE delivery_workers SET last_seen_at = now() - interval '5 minutes' WHERE worker = 'worker-2'")
            try await harness.client.execute(
                """
                INSERT INTO apns_signing_keys (team_id, key_id, key_path) VALUES ('TEAM000001', 'KEY0000001', '/k.p8')
                """)
            try await SigningKeyStore(client: harness.client).recordRefusal(
                teamID: "TEAM000001", keyID: "KEY0000001", reason: "InvalidProviderToken", pausedFor: .seconds(60))
            try await harness.client.execute(
                """
                INSERT INTO push_log_minutes (minute, app_id, notification_type, status, apns_reason, count)
                VALUES (date_trunc('minute', now(), 'UTC') - interval '1 minute', NULL, 'custom', 'sent', NULL, 120)
                """)

            let read = harness.bearer(harness.keys[.read]!)
            let outbox = try await api.call(.get, "/api/v1/outbox", headers: read)
            #expect(outbox.status == .ok, "\(outbox.text)")
            #expect(Self.count(outbox, lane: "bulk", state: "pending") == .int(2))
            #expect(Self.count(outbox, lane: "bulk", state: "retrying") == .int(1))
            #expect(Self.count(outbox, lane: "bulk", state: "sending") == .int(1))
            #expect(Self.count(outbox, lane: "bulk", state: "deferred") == .int(0))
            #expect(Self.count(outbox, lane: "immediate", state: "pending") == .int(4))
            #expect(outbox.json?["scheduled"]?["bulk"] == .int(1))
            let oldest: Double? =
                switch outbox.json?["oldestPendingSeconds"] {
                case .double(let value)?: value
                case .int(let value)?: Double(value)
                default: nil
                }
            #expect(oldest.map { (30..<60).contains($0) } == true, "\(outbox.text)")
            #expect(Self.list(outbox.json?["apps"]).first?["deliveriesPerSecond"] == .int(2))
            let key = Self.list(outbox.json?["signingKeys"]).first { $0["keyId"] == .string("KEY0000001") }
            #expect(key?["lastRefusalReason"] == .string("InvalidProviderToken"))
            #expect(key?["pausedUntil"]?.stringValue != nil)
            let listed = Self.list(outbox.json?["workers"])
            #expect(listed.map { $0["worker"] } == [.string("worker-1"), .string("worker-2")])
            #expect(listed.map { $0["alive"] } == [.bool(true), .bool(false)])
            #expect(listed.first?["claimed"] == .int(1) && listed.first?["inFlight"] == .int(7))
            #expect(listed.last?["pauseReason"] == .string("service refused"))
            #expect(listed.last?["consecutivePauses"] == .int(2))

            #expect(try await api.call(.get, "/api/v1/outbox").status == .unauthorized)
            #expect(try await api.call(.get, "/api/v1/outbox", headers: try harness.user("alice")).status == .forbidden)
            let unknown = try await api.call(.get, "/api/v1/outbox?lane=bulk", headers: read)
            #expect(unknown.status == .unprocessableContent)
            #expect(unknown.field == "lane")
        }
    }

    @Test func anAppsKeySeesItsOwnAppsOutbox() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await TenantIsolationTests.world(api)
            let sent = try await api.call(
                .post, "/api/v1/notifications", headers: world.keyB,
                json: #"{"userIds":["alice"],"alert":{"body":"b only"}}"#)
            _ = try await harness.waitForExpansion(try #require(sent.json?["id"]?.stringValue))
            let mine = try await api.call(.get, "/api/v1/outbox", headers: world.readA)
            #expect(mine.status == .ok, "\(mine.text)")
            #expect(Self.count(mine, lane: "bulk", state: "pending") == .int(0), "app b's delivery is not a's")
            let everyApp = try await api.call(.get, "/api/v1/outbox", headers: harness.bearer(harness.keys[.read]!))
            #expect(Self.count(everyApp, lane: "bulk", state: "pending") == .int(1))
            let asked = try await api.call(.get, "/api/v1/outbox?appId=b", headers: world.readA)
            #expect(asked.status == .notFound)
        }
    }
}
