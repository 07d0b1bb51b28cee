import Foundation

extension PushResult {
    private struct ErrorBody: Decodable {
        let reason: String?
        let timestamp: Double?
    }

    /// The result for an HTTP/2 response from APNs.
    /// - Parameters:
    ///   - status: `:status`.
    ///   - apnsIDHeader: The `apns-id` response header, if any.
    ///   - uniqueID: The `apns-unique-id` response header, if any.
    ///   - body: The response body (JSON `{"reason": …, "timestamp": …}` on failure).
    ///   - sentID: The `apns-id` the request carried, used when Apple's echo is missing.
    package static func parse(
        status: Int, apnsIDHeader: String?, uniqueID: String?, body: [UInt8], sentID: APNsID
    ) -> PushResult {
        let apnsID = apnsIDHeader.flatMap(APNsID.init) ?? sentID
        if status == 200 {
            return .accepted(PushReceipt(apnsID: apnsID, uniqueID: uniqueID))
        }
        let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(body))
        let reason = decoded?.reason.map(APNsReason.init(name:)) ?? .unknown("HTTP \(status)")
        let timestamp = decoded?.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
        return .rejected(PushRejection(status: status, reason: reason, apnsID: apnsID, timestamp: timestamp))
    }
}
