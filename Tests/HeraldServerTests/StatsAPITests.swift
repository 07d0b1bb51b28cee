import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct StatsAPITests {
    /// Deliveries of two types: `release` has 6 sent, 2 failed and 2 dead tokens ten minutes ago, one sent two
    /// hours ago and one still pending; `digest` has 4 sent ten minutes ago. A finished delivery is its final log
    /// row, as the engine writes it; every finished `release` delivery was retried once before, a log row the counts
    /// must leave out.
    static func seed(_ api: API) async throws {
        try await DeviceAPITests.setUp(api, users: ["alice"])
        let registered = try await api.call(
            .post, "/api/v1/devices/register", headers: try api.harness.user("alice"),
            json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
        #expect(registered.status == .created)
        try await api.harness.client.execute(
            """
            WITH spec AS MATERIALIZED (
                SELECT gen_random_uuid() AS id, gen_random_uuid() AS delivery, v.type, v.state, v.ago
                FROM (
                    SELECT 'release', 'sent', 10 FROM generate_series(1, 6)
                    UNION ALL SELECT 'release', 'failed', 10 FROM generate_series(1, 2)
                    UNION ALL SELECT 'release', 'token_expired', 10 FROM generate_series(1, 2)
                    UNION ALL SELECT 'release', 'sent', 120
                    UNION ALL SELECT 'release', 'pending', 0
                    UNION ALL SELECT 'digest', 'sent', 10 FROM generate_series(1, 4)
                ) AS v (type, state, ago)
            ),
            n AS (
                INSERT INTO notifications (id, kind, type, content, targets, state, expanded_at, created_at)
                SELECT id, 'direct', type, '{}', '{}', 'expanded', now(), now() - interval '1 day' FROM spec
            ),
            recipient AS (
                SELECT u.id AS user_id, t.id AS device_id
                FROM users AS u CROSS JOIN (SELECT id FROM device_tokens LIMIT 1) AS t WHERE u.external_id = 'alice'
            ),
            open AS (
                INSERT INTO deliveries (id, notification_id, user_id, device_token_id, environment, notification_type)
                SELECT s.delivery, s.id, r.user_id, r.device_id, 'sandbox', s.type
                FROM spec AS s CROSS JOIN recipient AS r WHERE s.state = 'pending'
            )
            INSERT INTO push_notification_logs (
                user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment, attempt,
                created_at)
            SELECT r.user_id, r.device_id, s.id, s.delivery, s.type, a.status, 'sandbox', a.attempt,
                now() - make_interval(mins => s.ago) - a.earlier
            FROM spec AS s CROSS JOIN recipient AS r
            CROSS JOIN LATERAL (
                SELECT s.state, 2, interval '0'
                UNION ALL SELECT 'retrying', 1, interval '30 seconds' WHERE s.type = 'release'
            ) AS a (status, attempt, earlier)
            WHERE s.state <> 'pending'
            """)
    }

    static func type(_ answer: API.Answer, _ name: String) -> JSONValue? {
        guard case .array(let types)? = answer.json?["types"] else { return nil }
        return types.first { $0["type"] == .string(name) }
    }

    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let number)?: Double(number)
        case .double(let number)?: number
        default: nil
        }
    }

    @Test func ratesCountOnlyDeliveriesFinishedInTheWindow() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.seed(api)
            let read = harness.bearer(harness.keys[.read]!)
            let hour = try await api.call(.get, "/api/v1/stats?window=1h", headers: read)
            #expect(hour.status == .ok)
            let release = Self.type(hour, "release")
            #expect(release?["finished"] == .int(10))
            #expect(release?["byState"]?["sent"] == .int(6))
            #expect(Self.number(release?["successRate"]) == 0.6)
            #expect(Self.number(release?["failureRate"]) == 0.2)
            #expect(Self.number(release?["tokenExpiredRate"]) == 0.2)
            let digest = Self.type(hour, "digest")
            #expect(digest?["finished"] == .int(4))
            #expect(Self.number(digest?["successRate"]) == 1)
            #expect(Self.number(digest?["failureRate"]) == 0)

            let longer = try await api.call(.get, "/api/v1/stats?window=180m", headers: harness.admin())
            #expect(Self.type(longer, "release")?["finished"] == .int(11))
            let byDefault = try await api.call(.get, "/api/v1/stats", headers: read)
            #expect(Self.type(byDefault, "release")?["finished"] == .int(10))
            let short = try await api.call(.get, "/api/v1/stats?window=5m", headers: read)
            #expect(short.json?["types"] == .array([]))
        }
    }

    @Test func bucketsSplitTheWindowAndFailuresAreCountedByReason() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.seed(api)
            try await api.harness.client.execute(
                """
                UPDATE push_notification_logs SET apns_reason = CASE status
                    WHEN 'failed' THEN 'DeviceTokenNotForTopic' WHEN 'token_expired' THEN 'Unregistered' END
                WHERE status IN ('failed', 'token_expired')
                """)
            let read = harness.bearer(harness.keys[.read]!)
            // Four quarters of an hour: everything that finished ten minutes ago is in the last one.
            let answer = try await api.call(.get, "/api/v1/stats?window=1h&buckets=4", headers: read)
            #expect(answer.status == .ok)
            guard case .array(let series)? = answer.json?["series"] else {
                Issue.record("no series in \(answer.text)")
                return
            }
            #expect(series.count == 4)
            #expect(series.first?["start"] == answer.json?["since"])
            #expect(series.last?["end"] == answer.json?["until"])
            #expect(series.dropLast().allSatisfy { $0["finished"] == .int(0) && $0["byState"] == .object([:]) })
            let last = series.last
            #expect(last?["finished"] == .int(14))
            #expect(last?["byState"]?["sent"] == .int(10))
            #expect(last?["byState"]?["failed"] == .int(2))
            #expect(last?["byState"]?["token_expired"] == .int(2))
            #expect(Self.number(last?["failureRate"]) == 0.143, "2 of 14, to a thousandth")
            let reasons: JSONValue = .array([
                .object(["state": .string("failed"), "reason": .string("DeviceTokenNotForTopic"), "count": .int(2)]),
                .object(["state": .string("token_expired"), "reason": .string("Unregistered"), "count": .int(2)]),
            ])
            #expect(answer.json?["failureReasons"] == reasons)

            let plain = try await api.call(.get, "/api/v1/stats?window=1h", headers: read)
            #expect(plain.json?["series"] == nil, "no series unless asked for")
            #expect(plain.json?["failureReasons"] == reasons)
            let week = try await api.call(.get, "/api/v1/stats?window=7d&buckets=28", headers: read)
            if case .array(let weekSeries)? = week.json?["series"] {
                #expect(weekSeries.count == 28)
                #expect(weekSeries.map { Self.number($0["finished"]) ?? 0 }.reduce(0, +) == 15)
            } else {
                Issue.record("no series in \(week.text)")
            }
        }
    }

    @Test(arguments: ["0", "501", "x", "1.5", ""])
    func badBucketCountsAreNamed(buckets: String) async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(
                .get, "/api/v1/stats?window=1h&buckets=\(buckets)", headers: harness.admin())
            #expect(answer.status == .unprocessableContent)
            #expect(answer.field == "buckets")
        }
    }

    @Test(arguments: ["1w", "h", "0h", "-1h", "1.5h", "91d", "1H"])
    func badWindowsAreNamed(window: String) async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(.get, "/api/v1/stats?window=\(window)", headers: harness.admin())
            #expect(answer.status == .unprocessableContent)
            #expect(answer.field == "window")
        }
    }

    @Test func everyKeyReadsButUsersMayNot() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.seed(api)
            try await api.expectEveryKeyReadsButNotUsers("/api/v1/stats?window=1h") { answer, scope in
                #expect(Self.type(answer, "release")?["finished"] == .int(10), "\(scope)")
            }
        }
    }
}
