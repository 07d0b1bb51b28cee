public import Foundation
import Postgres

/// Outcomes of the deliveries that finished in a window (`GET /api/v1/stats`): per notification type, the
/// commonest reasons for failures, and on request the same counts in equal time buckets for a chart.
public struct DeliveryStats: Sendable, Hashable {
    /// One notification type's finished deliveries.
    public struct TypeStats: Sendable, Hashable, FinishedDeliveryCounts {
        public var type: String
        public var byState: [String: Int]
    }

    /// The deliveries that finished in one slice `[start, end)` of the window; the last slice includes its end.
    public struct Bucket: Sendable, Hashable, FinishedDeliveryCounts {
        public var start: Date
        public var end: Date
        public var byState: [String: Int]
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

    public var since: Date
    public var until: Date
    /// Sorted by type.
    public var types: [TypeStats]
    /// Commonest first.
    public var failureReasons: [FailureReason]
    /// Oldest first, covering the whole window; nil unless buckets were asked for.
    public var series: [Bucket]?
}

/// Finished deliveries by final state (`sent`, `failed`, `token_expired`, `expired`, `canceled`) and the rates
/// derived from them.
public protocol FinishedDeliveryCounts {
    var byState: [String: Int] { get }
}

extension FinishedDeliveryCounts {
    /// Every delivery that finished: the denominator of each rate.
    public var finished: Int { byState.values.reduce(0, +) }
    public var successRate: Double { rate("sent") }
    public var failureRate: Double { rate("failed") }
    public var tokenExpiredRate: Double { rate("token_expired") }

    private func rate(_ state: String) -> Double {
        finished == 0 ? 0 : Double(byState[state, default: 0]) / Double(finished)
    }
}

extension DeliveryLogStore {
    /// Counts the deliveries that finished between `now - window` and `now`.
    /// - Parameter buckets: When given, also splits the window into this many equal slices (1 to
    ///   ``DeliveryStats/maximumBuckets``) and counts each.
    public func stats(window: Duration, buckets: Int? = nil, now: Date = Date()) async throws -> DeliveryStats {
        let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        let since = now.addingTimeInterval(-seconds)
        let rows = try await client.query(
            """
            SELECT n.type, d.state, count(*)
            FROM deliveries AS d JOIN notifications AS n ON n.id = d.notification_id
            WHERE d.finished_at >= \(since) AND d.finished_at <= \(now)
            GROUP BY n.type, d.state
            """
        ).decode((String, String, Int).self)
        var byType: [String: [String: Int]] = [:]
        for (type, state, count) in rows { byType[type, default: [:]][state] = count }
        var series: [DeliveryStats.Bucket]?
        if let buckets {
            series = try await self.series(since: since, until: now, buckets: buckets)
        }
        return DeliveryStats(
            since: since, until: now,
            types: byType.keys.sorted().map { DeliveryStats.TypeStats(type: $0, byState: byType[$0]!) },
            failureReasons: try await failureReasons(since: since, until: now), series: series)
    }

    private func failureReasons(since: Date, until: Date) async throws -> [DeliveryStats.FailureReason] {
        try await client.query(
            """
            SELECT state, last_reason, count(*) AS count
            FROM deliveries
            WHERE finished_at >= \(since) AND finished_at <= \(until) AND state = ANY (\(DeliveryStats.failureStates))
            GROUP BY state, last_reason
            ORDER BY count DESC, state, last_reason
            LIMIT \(DeliveryStats.maximumReasons)
            """
        ).decode((String, String?, Int).self).map { DeliveryStats.FailureReason(state: $0, reason: $1, count: $2) }
    }

    private func series(since: Date, until: Date, buckets: Int) async throws -> [DeliveryStats.Bucket] {
        let count = max(1, min(buckets, DeliveryStats.maximumBuckets))
        let width = until.timeIntervalSince(since) / Double(count)
        // A delivery that finished exactly at `until` belongs to the last bucket, not one past it.
        let rows = try await client.query(
            """
            SELECT LEAST(floor(extract(epoch FROM finished_at - \(since))::float8 / \(width))::bigint, \(count - 1)),
                state, count(*)
            FROM deliveries
            WHERE finished_at >= \(since) AND finished_at <= \(until)
            GROUP BY 1, 2
            """
        ).decode((Int, String, Int).self)
        var counts = Array(repeating: [String: Int](), count: count)
        for (index, state, total) in rows where counts.indices.contains(index) { counts[index][state] = total }
        return counts.enumerated().map { index, byState in
            DeliveryStats.Bucket(
                start: since.addingTimeInterval(width * Double(index)),
                end: index == count - 1 ? until : since.addingTimeInterval(width * Double(index + 1)),
                byState: byState)
        }
    }
}
