extension PushRequest {
    /// Writes the request's pseudo-headers and APNs headers into `block`, in the order they are sent.
    /// `:path` (holds the device token) and `authorization` are never indexed, so neither stays in
    /// any HPACK table along the way. `apns-id` is unique per request: indexing it would only push the
    /// repeated headers (topic, push type, priority) out of the 4 KiB dynamic table on both sides.
    package func writeHeaders(into block: inout HeaderBlock, authority: String, authorization: String) {
        switch destination {
        case .device(let token):
            writeDeviceHeaders(token, into: &block, authority: authority, authorization: authorization)
        case .channel(let channel):
            block.removeAll()
            writeBroadcastHeaders(channel, into: &block, authority: authority, authorization: authorization)
        case .channels(let operation):
            block.removeAll()
            writeChannelHeaders(operation, into: &block, authority: authority, authorization: authorization)
        }
    }

    /// Consecutive pushes of one app share everything but `:path`, `apns-id` and the trailing fields: those shared
    /// fields are written once and kept in the block while they stay the same.
    private func writeDeviceHeaders(
        _ token: DeviceToken, into block: inout HeaderBlock, authority: String, authorization: String
    ) {
        let shared = HeaderBlock.SharedKey(
            authority: authority, authorization: authorization, topic: topic, pushType: pushType, priority: priority)
        block.removeAll(keepingFieldsSharedBy: shared) { block in
            block.append(":method", "POST")
            block.append(":scheme", "https")
            block.append(":authority", authority)
            block.append("authorization", authorization, neverIndexed: true)
            block.append("apns-push-type", pushType.headerValue)
            block.append("apns-topic", topic)
            block.append("apns-priority", priority.rawValue)
        }
        block.appendSharedFields(0..<3)
        block.append(":path", neverIndexed: true) {
            $0.appendASCII("/3/device/")
            $0.appendUTF8(token.hex)
        }
        block.appendSharedFields(3..<7)
        block.append("apns-id", neverIndexed: true) { $0.appendAPNsID(apnsID) }
        block.append("content-length", payload.count)
        if let expiration { block.append("apns-expiration", expiration.headerValue) }
        if let collapseID { block.append("apns-collapse-id", collapseID.value) }
    }

    /// Apple's broadcast request: no topic (the path names the app), `apns-expiration` always present.
    private func writeBroadcastHeaders(
        _ channel: ChannelID, into block: inout HeaderBlock, authority: String, authorization: String
    ) {
        block.append(":method", "POST")
        block.append(":scheme", "https")
        block.append(":authority", authority)
        block.append(":path", neverIndexed: false) {
            $0.appendASCII("/4/broadcasts/apps/")
            $0.appendUTF8(topic)
        }
        block.append("authorization", authorization, neverIndexed: true)
        block.append("apns-channel-id", channel.rawValue)
        block.append("apns-push-type", pushType.headerValue)
        block.append("apns-priority", priority.rawValue)
        block.append("apns-expiration", (expiration ?? .immediately).headerValue)
        block.append("apns-request-id", neverIndexed: true) { $0.appendAPNsID(apnsID) }
        block.append("content-length", payload.count)
    }

    private func writeChannelHeaders(
        _ operation: ChannelOperation, into block: inout HeaderBlock, authority: String, authorization: String
    ) {
        block.append(":method", operation.method)
        block.append(":scheme", "https")
        block.append(":authority", authority)
        block.append(":path", operation.path(bundleID: topic))
        block.append("authorization", authorization, neverIndexed: true)
        block.append("apns-request-id", neverIndexed: true) { $0.appendAPNsID(apnsID) }
        if let channel = operation.channelID { block.append("apns-channel-id", channel.rawValue) }
        if !payload.isEmpty {
            block.append("content-type", "application/json")
            block.append("content-length", payload.count)
        }
    }
}
