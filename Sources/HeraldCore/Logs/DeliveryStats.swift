public import Foundation
import Postgres

/// Outcomes of the deliveries that finished in a window (`GET /api/v1/stats`): per notification type, the
/// commonest reasons for failures, and on request the same counts in equal time buckets for a chart.
public struct DeliveryStats: Sendable, Hashable {
    /// One notification type's finished deliveries, and the interactions with its pushes recorded in the window.
    public struct TypeStats: Sendable, Hashable, FinishedDeliveryCounts {
        public var type: String
        public var byState: [String: Int]
        public var engagement = Engagement()
    }

    /// The deliveries that finished in one slice `[start, end)` of the window, and the interactions recorded in it;
    /// the last slice includes its end.
    public struct Bucket: Sendable, Hashable, FinishedDeliveryCounts {
        public var start: Date
        public var end: Date
        public var byState: [String: Int]
        public var engagement = Engagement()
    }

    /// What people did with pushes: banners opened and dismissed, and the app's own actions by identifier (the
    /// ``maximumActions`` commonest).
    public struct Engagement: Sendable, Hashable {
        public var opened = 0
        public var dismissed = 0
        public var actions: [String: Int] = [:]
    }

    /// How many deliveries ended in a failing `state` (`failed`, `token_expired`, `expired`) with one reason.
    public struct FailureReason: Sendable, Hashable {
        public var state: String
        /// Apple's reason or Herald's own; nil when none was recorded.
        public var reason: String?
        public var count: Int
    }

    /// The failing final states that `failureReasons` counts.
    public static let failureStates = ["failed", "token_expired", "expired"]
    /// The most buckets one answer may have.
    public static let maximumBuckets = 500
    /// The most reasons one answer lists, commonest first.
    public static let maximumReasons = 50
    /// The most action identifiers a type or bucket lists, commonest first.
    public static let maximumActions = 50

    public var since: Date
    public var until: Date
    /// Sorted by type.
    public var types: [TypeStats]
    /// Commonest first.
    public var failureReasons: [FailureReason]
    /// Oldest first, covering the whole window; nil unless buckets were asked for.
    public var series: [Bucket]?
}

/// Finished deliveries by final state (`sent`, `failed`, `token_expired`, `expired`, `canceled`), the interactions
/// recorded beside them, and the rates derived from them.
public protocol FinishedDeliveryCounts {
    var byState: [String: Int] { get }
    var engagement: DeliveryStats.Engagement { get }
}

extension FinishedDeliveryCounts {
    /// Every delivery that finished: the denominator of each rate.
    public var finished: Int { byState.values.reduce(0, +) }
    public var successRate: Double { rate("sent") }
    public var failureRate: Double { rate("failed") }
    public var tokenExpiredRate: Double { rate("token_expired") }
    /// Banners opened per push sent in the same time: an open counts when it is recorded, so a push sent before the
    /// window and opened in it counts as an open only.
    public var openRate: Double {
        let sent = byState["sent", default: 0]
        return sent == 0 ? 0 : Double(engagement.opened) / Double(sent)
    }

    private func rate(_ state: String) -> Double {
        finished == 0 ? 0 : Double(byState[state, default: 0]) / Double(finished)
    }
}

extension DeliveryLogStore {
    /// Counts the deliveries that finished between `now - window` and `now`.
    /// - Parameters:
    ///   - buckets: When given, also splits the window into this many equal slices (1 to
    ///     ``DeliveryStats/maximumBuckets``) and counts each.
    ///   - app: When given, only deliveries to that app's devices count.
    public func stats(window: Duration, buckets: Int? = nil, app: String? = nil, now: Date = Date()) async throws
        -> DeliveryStats
    {
        let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        let since = now.addingTimeInterval(-seconds)
        let count = max(1, min(buckets ?? 1, DeliveryStats.maximumBuckets))
        let width = seconds / Double(count)
        // Bucket i is [starts[i], starts[i + 1]); the last one ends at `now` included, so a delivery that finished
        // exactly at `now` belongs to it. Without buckets, the window is one bucket.
        let starts = (0..<count).map { since.addingTimeInterval(width * Double($0)) }
        var bindings = PostgresBindings()
        bindings.append(starts)
        bindings.append(now)
        bindings.append(app)
        // One read of the window, grouped three ways, so the totals, reasons and chart agree with each other.
        // GROUPING(...) says which way a row is grouped: 3 by type, 5 by reason, 6 by bucket.
        //
        // A finished delivery's record is its final log row (Migrations/0029), and push_log_minutes counts those
        // rows per UTC minute (Migrations/0033). Each bucket [start, stop) adds the minutes wholly inside it, and
        // counts the log rows of its partial first and last minutes from idx_push_logs_finished (index-only range
        // scans of under a minute each), so a bucket costs what its minutes cost, whatever was sent in them. A push
        // sent again after its worker's lease ran out (the worker still answered) counts once per answer. A delivery
        // counts for the app its device had when its row was written; the partial minutes, read from the log, take
        // the device's app now. The two partial minutes are two branches, each its own index range: joined to a
        // VALUES list of both ranges instead, the plan read far more of the log. JIT is off: compiling this plan
        // would take longer than running it.
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT GROUPING(type, reason, bucket), type, state, reason, bucket, sum(count)::int8
                FROM unnest($1::timestamptz[]) WITH ORDINALITY AS b (start, number)
                CROSS JOIN LATERAL (
                    SELECT b.number - 1 AS bucket,
                        coalesce(($1::timestamptz[])[b.number::int + 1], $2 + interval '1 microsecond') AS stop
                ) AS slice
                CROSS JOIN LATERAL (
                    SELECT least(slice.stop, date_trunc('minute', b.start, 'UTC')
                            + CASE WHEN b.start = date_trunc('minute', b.start, 'UTC') THEN interval '0'
                                ELSE interval '1 minute' END) AS whole_from,
                        date_trunc('minute', slice.stop, 'UTC') AS whole_before
                ) AS edge
                CROSS JOIN LATERAL (
                    SELECT counted.type, counted.state, counted.reason, sum(counted.count) AS count
                    FROM (
                        SELECT m.notification_type AS type, m.status AS state, m.apns_reason AS reason, m.count
                        FROM push_log_minutes AS m
                        WHERE m.minute >= edge.whole_from AND m.minute < edge.whole_before
                            AND ($3::text IS NULL OR m.app_id = (SELECT a.id FROM apps a WHERE a.external_id = $3))
                        UNION ALL
                        SELECT l.notification_type, l.status, l.apns_reason, 1
                        FROM push_notification_logs AS l
                        WHERE l.created_at >= b.start AND l.created_at < edge.whole_from AND l.status <> 'retrying'
                            AND ($3::text IS NULL OR l.device_token_id IN (
                                SELECT t.id FROM device_tokens t JOIN apps a ON a.id = t.app_id
                                WHERE a.external_id = $3))
                        UNION ALL
                        SELECT l.notification_type, l.status, l.apns_reason, 1
                        FROM push_notification_logs AS l
                        WHERE l.created_at >= greatest(edge.whole_before, edge.whole_from)
                            AND l.created_at < slice.stop AND l.status <> 'retrying'
                            AND ($3::text IS NULL OR l.device_token_id IN (
                                SELECT t.id FROM device_tokens t JOIN apps a ON a.id = t.app_id
                                WHERE a.external_id = $3))
                    ) AS counted
                    GROUP BY 1, 2, 3
                ) AS finished
                GROUP BY GROUPING SETS ((type, state), (state, reason), (bucket, state))
                HAVING sum(count) > 0
                """, bindings: bindings)
        let (rows, interactions) = try await client.withTransaction { connection in
            try await connection.execute("SELECT set_config('jit', 'off', true)")
            return (
                try await connection.query(query).decode((Int32, String?, String, String?, Int?, Int).self),
                try await connection.query(Self.engagementQuery(starts: starts, until: now, app: app))
                    .decode((String?, String, Int?, Int).self)
            )
        }
        var byType: [String: [String: Int]] = [:]
        var reasons: [DeliveryStats.FailureReason] = []
        var byBucket = Array(repeating: [String: Int](), count: count)
        for (grouping, type, state, reason, bucket, total) in rows {
            switch grouping {
            case 3: if let type { byType[type, default: [:]][state] = total }
            case 5 where DeliveryStats.failureStates.contains(state):
                reasons.append(DeliveryStats.FailureReason(state: state, reason: reason, count: total))
            case 6: if let bucket, byBucket.indices.contains(bucket) { byBucket[bucket][state] = total }
            default: break
            }
        }
        var engagementByType: [String: DeliveryStats.Engagement] = [:]
        var engagementByBucket = Array(repeating: DeliveryStats.Engagement(), count: count)
        for (type, action, bucket, total) in interactions {
            if let type {
                engagementByType[type, default: .init()].add(action, total)
                // A type whose pushes were opened in the window but finished before it is listed too.
                if byType[type] == nil { byType[type] = [:] }
            } else if let bucket, engagementByBucket.indices.contains(bucket) {
                engagementByBucket[bucket].add(action, total)
            }
        }
        let series = buckets.map { _ in
            byBucket.enumerated().map { index, byState in
                DeliveryStats.Bucket(
                    start: starts[index], end: index == count - 1 ? now : starts[index + 1], byState: byState,
                    engagement: engagementByBucket[index].keepingCommonestActions())
            }
        }
        return DeliveryStats(
            since: since, until: now,
            types: byType.keys.sorted().map {
                DeliveryStats.TypeStats(
                    type: $0, byState: byType[$0]!,
                    engagement: engagementByType[$0, default: .init()].keepingCommonestActions())
            },
            failureReasons: Array(
                reasons.sorted(by: DeliveryStats.FailureReason.commonestFirst)
                    .prefix(DeliveryStats.maximumReasons)),
            series: series)
    }
}

extension DeliveryLogStore {
    /// Interactions recorded in `[starts[0], until]`, counted by (type, action) and by (bucket, action): a type's
    /// row has no bucket and a bucket's row no type. An interaction counts for the app of its device.
    static func engagementQuery(starts: [Date], until: Date, app: String?) -> PostgresQuery {
        """
        SELECT i.notification_type, i.action, width_bucket(i.created_at, \(starts)::timestamptz[])::int8 - 1,
               count(*)::int8
        FROM push_interactions i
        WHERE i.created_at >= \(starts.first ?? until) AND i.created_at <= \(until)
          AND (\(app)::text IS NULL OR i.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(app)))
        GROUP BY GROUPING SETS ((i.notification_type, i.action), (3, i.action))
        """
    }
}

extension DeliveryStats.Engagement {
    mutating func add(_ action: String, _ count: Int) {
        switch action {
        case InteractionAction.opened.rawValue: opened += count
        case InteractionAction.dismissed.rawValue: dismissed += count
        default: actions[action, default: 0] += count
        }
    }

    /// The same counts with only the ``DeliveryStats/maximumActions`` commonest identifiers (ties by name).
    func keepingCommonestActions() -> Self {
        guard actions.count > DeliveryStats.maximumActions else { return self }
        var kept = self
        kept.actions = Dictionary(
            uniqueKeysWithValues: actions.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(DeliveryStats.maximumActions).map { ($0.key, $0.value) })
        return kept
    }
}

extension DeliveryStats.FailureReason {
    /// Most deliveries first, then by state and reason (no reason last), so equal counts list in a stable order.
    static func commonestFirst(_ a: Self, _ b: Self) -> Bool {
        if a.count != b.count { return a.count > b.count }
        if a.state != b.state { return a.state < b.state }
        switch (a.reason, b.reason) {
        case (let x?, let y?): return x < y
        case (.some, .none): return true
        default: return false
        }
    }
}
