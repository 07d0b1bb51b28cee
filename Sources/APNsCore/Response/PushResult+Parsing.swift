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
        status: Int, apnsIDHeader: String?, uniqueID: String?, channelID: String? = nil, body: [UInt8],
        sentID: APNsID
    ) -> PushResult {
        let apnsID = apnsIDHeader.flatMap(APNsID.init) ?? sentID
        // A channel is created with 201 and deleted with 204; everything else succeeds with 200.
        if (200...204).contains(status) {
            return .accepted(
                PushReceipt(
                    apnsID: apnsID, uniqueID: uniqueID, channelID: channelID.flatMap(ChannelID.init), body: Data(body)))
        }
        // Apple's error bodies are JSON objects; anything else (a proxy's HTML page) has no reason to find.
        let decoded =
            body.first == UInt8(ascii: "{") ? try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) : nil
        let reason = decoded?.reason.map(APNsReason.init(name:)) ?? .unknown("HTTP " + String(status))
        let timestamp = decoded?.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
        return .rejected(PushRejection(status: status, reason: reason, apnsID: apnsID, timestamp: timestamp))
    }
}
