import Foundation
import HeraldCore
import Hummingbird

/// `GET /stats`: per notification type, the deliveries that finished in the window, the interactions recorded in it
/// and their rates; the commonest failure reasons; and, when buckets were asked for, the same counts over time.
struct StatsResponse: ResponseEncodable {
    struct Counts: Encodable {
        var finished: Int
        var byState: [String: Int]
        var successRate: Double
        var failureRate: Double
        var tokenExpiredRate: Double
        var opened: Int
        var dismissed: Int
        var actions: [String: Int]
        var openRate: Double

        init(_ counts: some FinishedDeliveryCounts) {
            finished = counts.finished
            byState = counts.byState
            successRate = counts.successRate.answerRate
            failureRate = counts.failureRate.answerRate
            tokenExpiredRate = counts.tokenExpiredRate.answerRate
            opened = counts.engagement.opened
            dismissed = counts.engagement.dismissed
            actions = counts.engagement.actions
            openRate = counts.openRate.answerRate
        }
    }

    struct TypeStats: Encodable {
        var type: String
        var counts: Counts

        private enum CodingKeys: String, CodingKey { case type }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try counts.encode(to: encoder)
        }
    }

    struct Bucket: Encodable {
        var start: Date
        var end: Date
        var counts: Counts

        private enum CodingKeys: String, CodingKey { case start, end }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try counts.encode(to: encoder)
        }
    }

    struct FailureReason: Encodable {
        var state: String
        var reason: String?
        var count: Int

        private enum CodingKeys: String, CodingKey { case state, reason, count }

        /// `reason` is always present, null when none was recorded.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try container.encode(reason, forKey: .reason)
            try container.encode(count, forKey: .count)
        }
    }

    var window: String
    var since: Date
    var until: Date
    var types: [TypeStats]
    var failureReasons: [FailureReason]
    var series: [Bucket]?

    init(_ stats: DeliveryStats, window: String) {
        self.window = window
        since = stats.since
        until = stats.until
        types = stats.types.map { TypeStats(type: $0.type, counts: Counts($0)) }
        failureReasons = stats.failureReasons.map {
            FailureReason(state: $0.state, reason: $0.reason, count: $0.count)
        }
        series = stats.series?.map { Bucket(start: $0.start, end: $0.end, counts: Counts($0)) }
    }
}
