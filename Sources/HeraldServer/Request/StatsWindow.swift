import HeraldCore

/// The `window` of `GET /api/v1/stats`: a whole number of minutes, hours or days (`15m`, `1h`, `7d`; digits only,
/// no leading zero, as `openapi.yaml`'s pattern states), and the
/// number of `buckets` to split it into.
enum StatsWindow {
    static let maximum = Duration.seconds(90 * 86_400)

    static func parse(_ text: String?) throws(APIError) -> Duration {
        guard let text else { return .seconds(3_600) }
        let unitSeconds: Int64? =
            switch text.last {
            case "m": 60
            case "h": 3_600
            case "d": 86_400
            default: nil
            }
        let digits = text.dropLast()
        guard let unitSeconds, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let count = Int64(digits), count > 0, count <= 90 * 86_400 / unitSeconds
        else {
            throw .validation("must be a whole number of m, h or d, at most 90d (e.g. 1h)", field: "window")
        }
        return .seconds(count * unitSeconds)
    }

    /// Nil when absent: the answer then has no series.
    static func parseBuckets(_ text: String?) throws(APIError) -> Int? {
        guard let text else { return nil }
        guard let count = Int(text), (1...DeliveryStats.maximumBuckets).contains(count) else {
            throw .validation("must be an integer from 1 to \(DeliveryStats.maximumBuckets)", field: "buckets")
        }
        return count
    }
}
