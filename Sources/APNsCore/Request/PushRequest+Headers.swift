/// One HTTP/2 header field as sent, with whether HPACK must never index it.
package struct HeaderField: Equatable, Sendable {
    package let name: String
    package let value: String
    package let neverIndexed: Bool
}

extension PushRequest {
    /// The request's pseudo-headers and APNs headers, in the order they are sent.
    /// `:path` (holds the device token) and `authorization` are never indexed, so neither stays in
    /// any HPACK table along the way. `apns-id` is unique per request: indexing it would only push the
    /// repeated headers (topic, push type, priority) out of the 4 KiB dynamic table on both sides.
    package func headerFields(authority: String, authorization: String) -> [HeaderField] {
        var fields = [
            HeaderField(name: ":method", value: "POST", neverIndexed: false),
            HeaderField(name: ":scheme", value: "https", neverIndexed: false),
            HeaderField(name: ":authority", value: authority, neverIndexed: false),
            HeaderField(name: ":path", value: "/3/device/" + deviceToken.hex, neverIndexed: true),
            HeaderField(name: "authorization", value: authorization, neverIndexed: true),
            HeaderField(name: "apns-push-type", value: pushType.headerValue, neverIndexed: false),
            HeaderField(name: "apns-topic", value: topic, neverIndexed: false),
            HeaderField(name: "apns-priority", value: String(priority.rawValue), neverIndexed: false),
            HeaderField(name: "apns-id", value: apnsID.description, neverIndexed: true),
            HeaderField(name: "content-length", value: String(payload.count), neverIndexed: false),
        ]
        if let expiration {
            fields.append(HeaderField(name: "apns-expiration", value: expiration.headerValue, neverIndexed: false))
        }
        if let collapseID {
            fields.append(HeaderField(name: "apns-collapse-id", value: collapseID.value, neverIndexed: false))
        }
        return fields
    }
}
