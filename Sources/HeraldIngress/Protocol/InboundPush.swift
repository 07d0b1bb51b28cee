import APNsCore
import Foundation
import HeraldCore

/// A push request that passed Apple's rules for its form, with everything the relay stores. Built by
/// ``InboundPush/read(_:)`` and ``InboundPush/validate(_:)`` in the order Apple checks a request: method and path, token,
/// headers, then, after the credentials, topic, priority, expiration, collapse id and payload.
struct InboundPush: Sendable, Equatable {
    /// The client's `apns-id`, or a new one.
    var apnsID: APNsID
    var token: DeviceToken
    /// `apns-topic`, suffix included.
    var topic: String
    /// The topic without the push type's suffix: the app's bundle id.
    var bundleID: String
    var pushType: PushType
    var priority: PushPriority
    /// `apns-expiration` in seconds since the epoch; nil when absent.
    var expiration: Int64?
    var collapseID: CollapseID?
    /// The payload's JSON text as sent.
    var payload: String

    /// What the request is before its credentials are checked: its `apns-id` (the client's or a new one, for the
    /// answer) and token, or Apple's refusal.
    struct Head: Sendable {
        var apnsID: APNsID
        var token: DeviceToken
    }

    /// The headers a request may carry once: a second one is `DuplicateHeaders`.
    static let singleHeaders = [
        "apns-id", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
        "authorization",
    ]

    /// Reads the method, path, token, duplicate headers and `apns-id`.
    /// - Throws: Apple's refusal, naming the client's `apns-id` when it is one, else a new one, as Apple answers.
    static func read(_ request: IngressRequest) throws(IngressRefusal) -> Head {
        let sentID = request.value("apns-id").flatMap(APNsID.init)
        let answerID = sentID ?? APNsID()
        let refuse = { (reason: APNsReason) in IngressRefusal(reason: reason, apnsID: answerID) }
        guard request.method == "POST" else { throw refuse(.methodNotAllowed) }
        guard let path = request.path, path.hasPrefix(devicePath) else { throw refuse(.badPath) }
        let hex = path.dropFirst(devicePath.count)
        guard !hex.isEmpty else { throw refuse(.missingDeviceToken) }
        guard let token = DeviceToken(hex: String(hex)) else { throw refuse(.badDeviceToken) }
        for name in singleHeaders where request.values(name).count > 1 { throw refuse(.duplicateHeaders) }
        if request.value("apns-id") != nil, sentID == nil { throw refuse(.badMessageID) }
        return Head(apnsID: answerID, token: token)
    }

    /// Checks the rest of the request of `head` against Apple's rules.
    /// - Throws: Apple's refusal.
    static func validate(_ request: IngressRequest, head: Head) throws(IngressRefusal) -> InboundPush {
        let refuse = { (reason: APNsReason) in IngressRefusal(reason: reason, apnsID: head.apnsID) }
        // Apple takes a push without a type as an alert.
        let typeName = request.value("apns-push-type") ?? PushType.alert.headerValue
        guard let pushType = PushType(headerValue: typeName) else { throw refuse(.invalidPushType) }
        guard let topic = request.value("apns-topic"), !topic.isEmpty else { throw refuse(.missingTopic) }
        guard HeaderValue.isSafe(topic), topic.hasSuffix(pushType.topicSuffix) else { throw refuse(.badTopic) }
        let bundleID = String(topic.dropLast(pushType.topicSuffix.utf8.count))
        guard AppDefinition.isBundleID(bundleID) else { throw refuse(.badTopic) }
        var priority = PushPriority.immediate
        if let text = request.value("apns-priority") {
            guard let number = Int(text), let chosen = PushPriority(rawValue: number) else {
                throw refuse(.badPriority)
            }
            priority = chosen
        }
        // Apple's default priority is 10, which a background push may not have.
        if pushType == .background && priority == .immediate { throw refuse(.badPriority) }
        var expiration: Int64?
        if let text = request.value("apns-expiration") {
            guard let seconds = Int64(text), (0...PushExpiration.latestEpochSecond).contains(seconds) else {
                throw refuse(.badExpirationDate)
            }
            expiration = seconds
        }
        var collapseID: CollapseID?
        if let text = request.value("apns-collapse-id") {
            guard let id = CollapseID(text), HeaderValue.isSafe(text) else { throw refuse(.badCollapseID) }
            collapseID = id
        }
        guard request.bodyCount > 0 else { throw refuse(.payloadEmpty) }
        guard request.bodyCount <= pushType.payloadLimit else { throw refuse(.payloadTooLarge) }
        guard let payload = jsonObjectText(request.body) else { throw refuse(.badRequestPayload) }
        return InboundPush(
            apnsID: head.apnsID, token: head.token, topic: topic, bundleID: bundleID, pushType: pushType,
            priority: priority, expiration: expiration, collapseID: collapseID, payload: payload)
    }

    /// The path of a push to a device, before its token.
    static let devicePath = "/3/device/"

    /// `body` as text when it is one JSON object in UTF-8 starting with `{`, with no NUL character anywhere (PostgreSQL
    /// keeps no NUL in text or `jsonb`, so the push could be neither stored nor logged); nil otherwise.
    static func jsonObjectText(_ body: [UInt8]) -> String? {
        guard body.first == UInt8(ascii: "{"), !body.contains(0), let text = String(bytes: body, encoding: .utf8),
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            !containsNUL(object)
        else { return nil }
        return text
    }

    /// Whether a parsed JSON value holds a NUL character in a key or string (written as `\u0000` in the JSON).
    private static func containsNUL(_ value: Any) -> Bool {
        switch value {
        case let text as String: text.utf8.contains(0)
        case let object as [String: Any]: object.contains { $0.key.utf8.contains(0) || containsNUL($0.value) }
        case let array as [Any]: array.contains(where: containsNUL)
        default: false
        }
    }
}

/// Apple's refusal of a request, with the `apns-id` its answer names.
struct IngressRefusal: Error, Equatable {
    let reason: APNsReason
    let apnsID: APNsID

    var answer: IngressAnswer { .refused(reason, apnsID) }
}

extension InboundPush {
    /// The message the outbox keeps for this push: sent on as the client wrote it.
    var message: NotificationMessage {
        NotificationMessage(
            relayed: RelayedPush(topic: topic, payload: payload, expiration: expiration), pushType: pushType,
            priority: priority, collapseID: collapseID)
    }

    /// When Herald stops trying: the client's expiration when it names a moment (`0` asks for one try, which Herald's
    /// retries do not shorten).
    var expiresAt: Date? {
        guard let expiration, expiration > 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(expiration))
    }
}
