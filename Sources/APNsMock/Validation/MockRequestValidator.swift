import Foundation

/// Apple's header rules, applied to one request, independently of Herald's client code.
struct MockRequestValidator: Sendable {
    /// The request as the mock received it.
    struct Head: Sendable {
        var method: String?
        var path: String?
        var headers: [(name: String, value: String)]
        var bodyCount: Int

        func values(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }
        func value(_ name: String) -> String? { values(name).first }
    }

    /// Required topic suffix per push type; alert and background use the bare bundle id.
    static let topicSuffixes: [String: String] = [
        "alert": "", "background": "", "voip": ".voip", "complication": ".complication",
        "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity",
        "location": ".location-query", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets",
        "controls": ".push-type.controls",
    ]

    let bundleIDs: Set<String>
    /// Token hex prefix → the service that issued it (see ``APNsMockConfiguration/tokenKinds``).
    let tokenKinds: [String: String]
    let tokens: MockTokenVerifier
    let channels: MockChannels

    /// The verdict for `head`: the first rule broken, in roughly the order Apple checks them.
    func verdict(for head: Head) -> MockVerdict {
        guard head.method == "POST" else { return reject(405, "MethodNotAllowed") }
        guard let path = head.path, path.hasPrefix("/3/device/") else { return reject(404, "BadPath") }
        let token = path.dropFirst("/3/device/".count)
        guard !token.isEmpty else { return reject(400, "MissingDeviceToken") }
        // Apple issues 32-byte tokens today and refuses any token it did not issue.
        guard token.utf8.count == 64, token.utf8.allSatisfy(\.isHexDigit) else { return reject(400, "BadDeviceToken") }
        for name in [
            "apns-id", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
            "authorization",
        ]
        where head.values(name).count > 1 {
            return reject(400, "DuplicateHeaders")
        }
        if let refusal = tokenRefusal(head) { return refusal }
        if let id = head.value("apns-id"), UUID(uuidString: id) == nil { return reject(400, "BadMessageId") }
        guard let pushType = head.value("apns-push-type"), let suffix = Self.topicSuffixes[pushType] else {
            return reject(400, "InvalidPushType")
        }
        guard let topic = head.value("apns-topic"), !topic.isEmpty else { return reject(400, "MissingTopic") }
        guard topic.hasSuffix(suffix) else { return reject(400, "BadTopic") }
        let bundleID = String(topic.dropLast(suffix.count))
        if !bundleIDs.isEmpty && !bundleIDs.contains(bundleID) { return reject(400, "TopicDisallowed") }
        if let kind = kind(of: token), kind != Self.service(of: pushType) {
            return reject(400, "DeviceTokenNotForTopic")
        }
        if let priority = head.value("apns-priority") {
            guard ["10", "5", "1"].contains(priority) else { return reject(400, "BadPriority") }
            if pushType == "background" && priority == "10" { return reject(400, "BadPriority") }
        } else if pushType == "background" {
            // Apple's default priority is 10, which background pushes may not use.
            return reject(400, "BadPriority")
        }
        if let expiration = head.value("apns-expiration"), Int64(expiration) == nil {
            return reject(400, "BadExpirationDate")
        }
        if let collapseID = head.value("apns-collapse-id"), collapseID.utf8.count > 64 {
            return reject(400, "BadCollapseId")
        }
        guard head.bodyCount > 0 else { return reject(400, "PayloadEmpty") }
        guard head.bodyCount <= (pushType == "voip" ? 5120 : 4096) else { return reject(413, "PayloadTooLarge") }
        return .accept(apnsID: head.value("apns-id")?.lowercased() ?? UUID().uuidString.lowercased())
    }

    /// The service that issued `token`, by the longest prefix bound to one; nil when none is.
    func kind(of token: Substring) -> String? {
        let lowered = token.lowercased()
        return tokenKinds.filter { lowered.hasPrefix($0.key.lowercased()) }.max { $0.key.count < $1.key.count }?.value
    }

    /// The service whose token a push type needs: the device's own for alert and background pushes.
    static func service(of pushType: String) -> String {
        pushType == "alert" || pushType == "background" ? "device" : pushType
    }

    /// Apple's answer to a missing, invalid, expired or too recently replaced provider token; nil for a good one.
    func tokenRefusal(_ head: Head) -> MockVerdict? {
        switch tokens.verify(authorization: head.value("authorization")) {
        case .valid: nil
        case .missing: reject(403, "MissingProviderToken")
        case .invalid: reject(403, "InvalidProviderToken")
        case .expired: reject(403, "ExpiredProviderToken")
        case .tooManyUpdates: reject(429, "TooManyProviderTokenUpdates")
        }
    }

    func reject(_ status: Int, _ reason: String) -> MockVerdict {
        .reject(status: status, reason: reason, timestamp: nil)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
}
