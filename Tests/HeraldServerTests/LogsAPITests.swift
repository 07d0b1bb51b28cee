import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct LogsAPITests {
    /// Forty log rows a minute apart for alice and bob on one registered device each; every fifth is a dead token.
    static func seed(_ api: API) async throws -> (notification: UUID, token: String, device: String) {
        try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
        let token = DeviceAPITests.hexToken()
        let registered = try await api.call(
            .post, "/api/v1/devices/register", headers: try api.harness.user("alice"),
            json: #"{"token":"\#(token)","platform":"iOS"}"#)
        let device = try #require(UUID(uuidString: registered.json?["id"]?.stringValue ?? ""))
        let notification = UUID()
        try await api.harness.client.execute(
            """
            INSERT INTO push_notification_logs
                (user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                 attempt, apns_reason, created_at)
            SELECT u.id, CASE WHEN u.external_id = 'alice' THEN \(device) END, \(notification), gen_random_uuid(),
                'new_feedback', CASE WHEN i % 5 = 0 THEN 'token_expired' ELSE 'sent' END, 'sandbox', 1,
                CASE WHEN i % 5 = 0 THEN 'Unregistered' END, now() - make_interval(mins => i)
            FROM generate_series(1, 40) AS i
            JOIN users AS u ON u.external_id = CASE WHEN i % 2 = 0 THEN 'alice' ELSE 'bob' END
            """)
        return (notification, token, device.uuidString.lowercased())
    }

    static func items(_ answer: API.Answer) -> [JSONValue] {
        if case .array(let list)? = answer.json?["items"] { return list }
        return []
    }

    @Test func filtersPageNewestFirstWithoutTokens() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let (notification, token, device) = try await Self.seed(api)
            let read = api.harness.bearer(harness.keys[.read]!)
            let alices = try await api.call(.get, "/api/v1/logs?userId=alice&limit=500", headers: read)
            #expect(alices.status == .ok)
            #expect(Self.items(alices).count == 20)
            #expect(
                Self.items(alices).allSatisfy { $0["userId"] == .string("alice") && $0["deviceId"] == .string(device) })
            let times = Self.items(alices).compactMap { $0["createdAt"]?.stringValue }
            #expect(times.count == 20 && times == times.sorted(by: >))
            #expect(alices.json?["nextCursor"] == .null)
            #expect(!alices.text.lowercased().contains(token.lowercased()))

            // Latencies answer to a tenth of a millisecond, not to the last bit of a double.
            try await harness.client.execute(
                "UPDATE push_notification_logs SET latency_ms = 15.777296999999999 WHERE notification_id = \(notification)"
            )
            let rounded = try await api.call(.get, "/api/v1/logs?userId=alice&limit=1", headers: read)
            #expect(rounded.text.contains(#""latencyMs":15.8"#), "\(rounded.text)")

            let dead = try await api.call(
                .get, "/api/v1/logs?status=token_expired&reason=Unregistered", headers: api.harness.admin())
            #expect(Self.items(dead).count == 8)
            let since = ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: -10.5 * 60))
            let recent = try await api.call(.get, "/api/v1/logs?since=\(since)", headers: read)
            #expect(Self.items(recent).count == 10)

            var seen: Set<String> = []
            var cursor: String?
            var pages = 0
            repeat {
                let uri =
                    "/api/v1/logs?notificationId=\(notification)&limit=15" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await api.call(.get, uri, headers: read)
                #expect(page.status == .ok)
                for item in Self.items(page) { seen.insert(item["id"]?.stringValue ?? "") }
                cursor = page.json?["nextCursor"]?.stringValue
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(seen.count == 40)
        }
    }

    @Test(arguments: [
        ("deviceId=nope", "deviceId"), ("status=lost", "status"), ("since=yesterday", "since"),
        ("until=2026-13-01T00:00:00Z", "until"), ("limit=501", "limit"), ("limit=0", "limit"),
        ("cursor=abc", "cursor"), ("userId=a%20b", "userId"), ("color=red", "color"),
    ])
    func badFiltersAreNamed(query: String, field: String) async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(.get, "/api/v1/logs?\(query)", headers: api.harness.admin())
            #expect(answer.status == .unprocessableContent)
            #expect(answer.field == field)
        }
    }

    @Test func everyKeyReadsButUsersMayNot() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            _ = try await Self.seed(api)
            try await api.expectEveryKeyReadsButNotUsers("/api/v1/logs?limit=500") { answer, scope in
                #expect(Self.items(answer).count == 40, "\(scope)")
            }
        }
    }
}
