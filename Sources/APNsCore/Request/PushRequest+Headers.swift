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
        switch destination {
        case .device(let token): deviceFields(token, authority: authority, authorization: authorization)
        case .channel(let channel): broadcastFields(channel, authority: authority, authorization: authorization)
        case .channels(let operation):
            channelFields(operation, authority: authority, authorization: authorization)
        }
    }

    private func deviceFields(_ token: DeviceToken, authority: String, authorization: String) -> [HeaderField] {
        var fields = [
            HeaderField(name: ":method", value: "POST", neverIndexed: false),
            HeaderField(name: ":scheme", value: "https", neverIndexed: false),
            HeaderField(name: ":authority", value: authority, neverIndexed: false),
            HeaderField(name: ":path", value: "/3/device/" + token.hex, neverIndexed: true),
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

    /// Apple's broadcast request: no topic (the path names the app), `apns-expiration` always present.
    private func broadcastFields(_ channel: ChannelID, authority: String, authorization: String) -> [HeaderField] {
        [
            HeaderField(name: ":method", value: "POST", neverIndexed: false),
            HeaderField(name: ":scheme", value: "https", neverIndexed: false),
            HeaderField(name: ":authority", value: authority, neverIndexed: false),
            HeaderField(name: ":path", value: "/4/broadcasts/apps/" + topic, neverIndexed: false),
            HeaderField(name: "authorization", value: authorization, neverIndexed: true),
            HeaderField(name: "apns-channel-id", value: channel.rawValue, neverIndexed: false),
            HeaderField(name: "apns-push-type", value: pushType.headerValue, neverIndexed: false),
            HeaderField(name: "apns-priority", value: String(priority.rawValue), neverIndexed: false),
            HeaderField(
                name: "apns-expiration", value: (expiration ?? .immediately).headerValue, neverIndexed: false),
            HeaderField(name: "apns-request-id", value: apnsID.description, neverIndexed: true),
            HeaderField(name: "content-length", value: String(payload.count), neverIndexed: false),
        ]
    }

    private func channelFields(_ operation: ChannelOperation, authority: String, authorization: String)
        -> [HeaderField]
    {
        var fields = [
            HeaderField(name: ":method", value: operation.method, neverIndexed: false),
            HeaderField(name: ":scheme", value: "https", neverIndexed: false),
            HeaderField(name: ":authority", value: authority, neverIndexed: false),
            HeaderField(name: ":path", value: operation.path(bundleID: topic), neverIndexed: false),
            HeaderField(name: "authorization", value: authorization, neverIndexed: true),
            HeaderField(name: "apns-request-id", value: apnsID.description, neverIndexed: true),
        ]
        if let channel = operation.channelID {
            fields.append(HeaderField(name: "apns-channel-id", value: channel.rawValue, neverIndexed: false))
        }
        if !payload.isEmpty {
            fields.append(HeaderField(name: "content-type", value: "application/json", neverIndexed: false))
            fields.append(HeaderField(name: "content-length", value: String(payload.count), neverIndexed: false))
        }
        return fields
    }
}
