import Foundation

extension MockRequestValidator {
    /// The verdict for a broadcast (`/4/broadcasts/apps/<bundle id>`) or a channel management request
    /// (`/1/apps/<bundle id>/channels`, `/1/apps/<bundle id>/all-channels`), by Apple's documented rules.
    func channelVerdict(for head: Head, body: [UInt8]) -> MockVerdict {
        guard let path = head.path else { return reject(404, "BadPath") }
        if let refusal = tokenRefusal(head) { return refusal }
        if let id = head.value("apns-request-id"), UUID(uuidString: id) == nil { return reject(400, "BadMessageId") }
        let requestID = head.value("apns-request-id")?.lowercased() ?? UUID().uuidString.lowercased()
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps" {
            return broadcast(head, body: body, bundleID: parts[4], requestID: requestID)
        }
        if parts.count == 5, parts[1] == "1", parts[2] == "apps", ["channels", "all-channels"].contains(parts[4]) {
            return management(
                head, body: body, bundleID: parts[3], all: parts[4] == "all-channels", requestID: requestID)
        }
        return reject(404, "BadPath")
    }

    private func broadcast(_ head: Head, body: [UInt8], bundleID: String, requestID: String) -> MockVerdict {
        guard head.method == "POST" else { return reject(405, "MethodNotAllowed") }
        if let refusal = topicRefusal(bundleID) { return refusal }
        guard channels.isEnabled(bundleID: bundleID) else { return reject(400, "FeatureNotEnabled") }
        guard let channel = head.value("apns-channel-id") else { return reject(400, "MissingChannelId") }
        guard (1...256).contains(channel.utf8.count), Data(base64Encoded: channel) != nil else {
            return reject(400, "BadChannelId")
        }
        guard let policy = channels.policy(bundleID: bundleID, channel: channel) else {
            return reject(400, "ChannelNotRegistered")
        }
        guard let pushType = head.value("apns-push-type") else { return reject(400, "MissingPushType") }
        guard pushType.lowercased() == "liveactivity" else { return reject(400, "InvalidPushType") }
        guard let priority = head.value("apns-priority"), ["10", "5", "1"].contains(priority) else {
            return reject(400, "BadPriority")
        }
        guard let text = head.value("apns-expiration"), let expiration = Int64(text), expiration >= 0 else {
            return reject(400, "BadExpirationDate")
        }
        if policy == 0, expiration != 0 { return reject(400, "BadExpirationDate") }
        guard !body.isEmpty else { return reject(400, "PayloadEmpty") }
        guard body.count <= 5120 else { return reject(413, "PayloadTooLarge") }
        if MockPayloadRules.refusal(pushType: "liveactivity", body: body) != nil {
            return reject(400, "BadRequestPayload")
        }
        // Broadcasts update and end activities; a start goes to push-to-start tokens.
        if let payload = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            (payload["aps"] as? [String: Any])?["event"] as? String == "start"
        {
            return reject(400, "BadRequestPayload")
        }
        return .answer(
            status: 200, headers: ["apns-request-id": requestID, "apns-unique-id": UUID().uuidString.lowercased()],
            body: [])
    }

    private func management(_ head: Head, body: [UInt8], bundleID: String, all: Bool, requestID: String)
        -> MockVerdict
    {
        if let refusal = topicRefusal(bundleID) { return refusal }
        guard channels.isEnabled(bundleID: bundleID) else { return reject(400, "FeatureNotEnabled") }
        let idHeader = ["apns-request-id": requestID]
        if all {
            guard head.method == "GET" else { return reject(405, "MethodNotAllowed") }
            let list = channels.list(bundleID: bundleID).map { "\"\($0)\"" }.joined(separator: ",")
            return .answer(status: 200, headers: idHeader, body: Array(#"{"channels":[\#(list)]}"#.utf8))
        }
        switch head.method {
        case "POST":
            guard let request = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                return reject(400, "BadRequestPayload")
            }
            guard let type = request["push-type"] as? String else { return reject(400, "MissingPushType") }
            guard type == "LiveActivity" else { return reject(400, "InvalidPushType") }
            guard let policy = request["message-storage-policy"] as? Int, [0, 1].contains(policy) else {
                return reject(400, "BadRequestParams")
            }
            guard let id = channels.create(bundleID: bundleID, policy: policy) else {
                return reject(400, "CannotCreateChannelConfig")
            }
            return .answer(status: 201, headers: idHeader.merging(["apns-channel-id": id]) { $1 }, body: [])
        case "GET", "DELETE":
            guard let channel = head.value("apns-channel-id") else { return reject(400, "MissingChannelId") }
            guard (1...256).contains(channel.utf8.count), Data(base64Encoded: channel) != nil else {
                return reject(400, "BadChannelId")
            }
            guard let policy = channels.policy(bundleID: bundleID, channel: channel) else {
                return reject(400, "ChannelNotRegistered")
            }
            if head.method == "DELETE" {
                _ = channels.delete(bundleID: bundleID, channel: channel)
                return .answer(status: 204, headers: idHeader, body: [])
            }
            let settings = #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#
            return .answer(status: 200, headers: idHeader, body: Array(settings.utf8))
        default:
            return reject(405, "MethodNotAllowed")
        }
    }

    /// Apple wants the bare bundle id here: a push type suffix, or an app it does not know, is refused.
    private func topicRefusal(_ bundleID: String) -> MockVerdict? {
        if bundleID.isEmpty || bundleID.contains(".push-type.") { return reject(400, "TopicDisallowed") }
        if !bundleIDs.isEmpty && !bundleIDs.contains(bundleID) { return reject(400, "TopicDisallowed") }
        return nil
    }
}
