import APNsCore
import Foundation

/// What the ingress answers one request, in Apple's form: a status, the `apns-id`, and for a refusal
/// `{"reason": …}` (with `"timestamp"` in milliseconds for a 410).
struct IngressAnswer: Sendable, Equatable {
    var status: Int
    /// The client's `apns-id`, or the one the ingress gave the push.
    var apnsID: APNsID
    /// Apple's reason for a refusal; nil for 200.
    var reason: String?
    /// With a 410: when Apple last knew the token valid.
    var timestamp: Date?
    /// `apns-unique-id`: Apple's id of an accepted push, when it gave one.
    var uniqueID: String?
    /// `herald-queued: true`: the push is stored and Herald keeps delivering it, but Apple gave no final answer within
    /// the wait (or the ingress answers once a push is stored, in accept mode).
    var queued = false
    /// `herald-reason`: Herald's reason when it gave up without a final answer from Apple (answered
    /// `500 InternalServerError`).
    var heraldReason: String?

    /// 200: Apple accepted the push.
    static func accepted(_ apnsID: APNsID, uniqueID: String?) -> IngressAnswer {
        IngressAnswer(status: 200, apnsID: apnsID, uniqueID: uniqueID)
    }

    /// 200 with `herald-queued: true`: stored, and delivered by Herald from here on.
    static func queued(_ apnsID: APNsID) -> IngressAnswer {
        IngressAnswer(status: 200, apnsID: apnsID, queued: true)
    }

    /// Apple's refusal `reason`, with the status Apple gives it.
    static func refused(_ reason: APNsReason, _ apnsID: APNsID) -> IngressAnswer {
        IngressAnswer(status: reason.status ?? 400, apnsID: apnsID, reason: reason.name)
    }

    /// The response headers besides `:status`.
    var headers: [(String, String)] {
        var headers = [("apns-id", apnsID.description)]
        if let uniqueID { headers.append(("apns-unique-id", uniqueID)) }
        if queued { headers.append(("herald-queued", "true")) }
        if let heraldReason { headers.append(("herald-reason", heraldReason)) }
        if reason != nil { headers.append(("content-type", "application/json")) }
        return headers
    }

    /// The JSON body of a refusal; nil for 200.
    var body: [UInt8]? {
        guard let reason else { return nil }
        var object: [String: Any] = ["reason": reason]
        // Apple's milliseconds, kept to the microsecond in the log: the nearest millisecond is Apple's.
        if let timestamp { object["timestamp"] = Int64((timestamp.timeIntervalSince1970 * 1000).rounded()) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return Array(#"{"reason":"InternalServerError"}"#.utf8)
        }
        return Array(data)
    }
}
