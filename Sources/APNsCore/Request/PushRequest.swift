public import Foundation

/// One push to one device, validated when built: everything Apple would refuse for its form is refused
/// here instead, before anything is sent.
public struct PushRequest: Sendable {
    /// The `apns-id`; the caller's row id, so Herald's logs match Apple's.
    public var apnsID: APNsID
    public var deviceToken: DeviceToken
    /// The full `apns-topic`, suffix included.
    public let topic: String
    public let pushType: PushType
    public let priority: PushPriority
    public var expiration: PushExpiration?
    public var collapseID: CollapseID?
    /// The JSON payload bytes, at most ``PushType/payloadLimit``.
    public let payload: Data

    /// Builds a request from an encoded payload.
    /// - Parameters:
    ///   - bundleID: The app's bundle id; the push type's suffix is appended (see ``PushType/topic(forBundleID:)``).
    ///   - priority: Defaults to ``PushPriority/default(for:)``; background pushes must be 5.
    ///   - payload: A JSON object.
    /// - Throws: ``PushRequestError``.
    public init(
        apnsID: APNsID = APNsID(), deviceToken: DeviceToken, bundleID: String, pushType: PushType,
        priority: PushPriority? = nil, expiration: PushExpiration? = nil, collapseID: CollapseID? = nil,
        payloadJSON payload: Data
    ) throws(PushRequestError) {
        guard !bundleID.isEmpty else { throw .missingTopic }
        let priority = priority ?? .default(for: pushType)
        if pushType.requiresPowerConsideredPriority && priority == .immediate {
            throw .priorityNotAllowed(priority, pushType)
        }
        guard payload.count <= pushType.payloadLimit else {
            throw .payload(.tooLarge(size: payload.count, limit: pushType.payloadLimit))
        }
        guard payload.first == UInt8(ascii: "{") else { throw .payload(.notAnObject) }
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.topic = pushType.topic(forBundleID: bundleID)
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
    }

    /// Builds a request from a typed payload, shortening the alert body if it is too large.
    /// - Throws: ``PushRequestError``; ``PayloadError/tooLarge(size:limit:)`` when shortening cannot help.
    public init(
        apnsID: APNsID = APNsID(), deviceToken: DeviceToken, bundleID: String, pushType: PushType,
        priority: PushPriority? = nil, expiration: PushExpiration? = nil, collapseID: CollapseID? = nil,
        payload: Payload
    ) throws(PushRequestError) {
        let json: Data
        do {
            json = try payload.fitted(toLimit: pushType.payloadLimit).json
        } catch {
            throw .payload(error)
        }
        try self.init(
            apnsID: apnsID, deviceToken: deviceToken, bundleID: bundleID, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, payloadJSON: json)
    }
}

/// Why a ``PushRequest`` could not be built.
public enum PushRequestError: Error, Equatable, CustomStringConvertible, Sendable {
    case missingTopic
    case priorityNotAllowed(PushPriority, PushType)
    case payload(PayloadError)

    public var description: String {
        switch self {
        case .missingTopic: "a push needs a topic (the app's bundle id)"
        case .priorityNotAllowed(let priority, let type):
            "priority \(priority.rawValue) is not allowed for \(type) pushes"
        case .payload(let error): error.description
        }
    }
}
