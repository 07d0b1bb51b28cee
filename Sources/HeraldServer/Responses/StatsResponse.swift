import Foundation
import HeraldCore

/// `GET /stats`: per notification type, the deliveries that finished in the window and their rates.
struct StatsResponse: Encodable {
    struct TypeStats: Encodable {
        var type: String
        var finished: Int
        var byState: [String: Int]
        var successRate: Double
        var failureRate: Double
        var tokenExpiredRate: Double
    }

    var window: String
    var since: Date
    var until: Date
    var types: [TypeStats]

    init(_ stats: DeliveryStats, window: String) {
        self.window = window
        since = stats.since
        until = stats.until
        types = stats.types.map {
            TypeStats(
                type: $0.type, finished: $0.finished, byState: $0.byState, successRate: $0.successRate,
                failureRate: $0.failureRate, tokenExpiredRate: $0.tokenExpiredRate)
        }
    }
}
