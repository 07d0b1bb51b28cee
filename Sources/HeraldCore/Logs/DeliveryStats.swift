public import Foundation
import Postgres

/// Outcomes of the deliveries that finished in a window, per notification type (`GET /api/v1/stats`).
public struct DeliveryStats: Sendable, Hashable {
    /// One notification type's finished deliveries.
    public struct TypeStats: Sendable, Hashable {
        public var type: String
        /// Finished deliveries by final state (`sent`, `failed`, `token_expired`, `expired`, `canceled`).
        public var byState: [String: Int]

        /// Every delivery that finished in the window: the denominator of each rate.
        public var finished: Int { byState.values.reduce(0, +) }
        public var successRate: Double { rate("sent") }
        public var failureRate: Double { rate("failed") }
        public var tokenExpiredRate: Double { rate("token_expired") }

        private func rate(_ state: String) -> Double {
            finished == 0 ? 0 : Double(byState[state, default: 0]) / Double(finished)
        }
    }

    public var since: Date
    public var until: Date
    /// Sorted by type.
    public var types: [TypeStats]
}

extension DeliveryLogStore {
    /// Counts the deliveries that finished between `now - window` and `now`, per notification type.
    public func stats(window: Duration, now: Date = Date()) async throws -> DeliveryStats {
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
        return DeliveryStats(
            since: since, until: now,
            types: byType.keys.sorted().map { DeliveryStats.TypeStats(type: $0, byState: byType[$0]!) })
    }
}
