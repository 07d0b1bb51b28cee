public import Foundation

/// One request to APNs, validated when built: everything Apple would refuse for its form is refused here instead,
/// before anything is sent. Most are a push to one device; a broadcast reaches every subscriber of a channel, and
/// a channel operation manages channels on Apple's management host.
public struct PushRequest: Sendable {
    /// Where the request goes.
    public enum Destination: Hashable, Sendable {
        /// `POST /3/device/<token>`.
        case device(DeviceToken)
        /// `POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id`.
        case channel(ChannelID)
        /// The channel management API.
        case channels(ChannelOperation)
    }

    /// The `apns-id` (`apns-request-id` for broadcasts and channel operations); the caller's row id, so Herald's
    /// logs match Apple's.
    public var apnsID: APNsID
    public let destination: Destination
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
        self.destination = .device(deviceToken)
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

extension PushRequest {
    /// The device a push goes to; nil for broadcasts and channel operations.
    public var deviceToken: DeviceToken? {
        if case .device(let token) = destination { token } else { nil }
    }

    /// The largest broadcast payload Apple takes.
    public static let broadcastPayloadLimit = 5120

    /// A broadcast of a Live Activity payload to every subscriber of `channel`.
    /// - Parameter expiration: Required by Apple: `.immediately` for a channel that stores nothing, else when the
    ///   stored broadcast lapses (at most 8 hours ahead).
    /// - Throws: ``PushRequestError``.
    public init(
        apnsID: APNsID = APNsID(), channel: ChannelID, bundleID: String, priority: PushPriority,
        expiration: PushExpiration, payload: Payload
    ) throws(PushRequestError) {
        guard !bundleID.isEmpty else { throw .missingTopic }
        let json: Data
        do {
            json = try payload.encoded()
        } catch {
            throw .payload(error)
        }
        guard json.count <= Self.broadcastPayloadLimit else {
            throw .payload(.tooLarge(size: json.count, limit: Self.broadcastPayloadLimit))
        }
        self.apnsID = apnsID
        destination = .channel(channel)
        topic = bundleID
        pushType = .liveActivity
        self.priority = priority
        self.expiration = expiration
        self.payload = json
    }

    /// A channel management request for the app `bundleID` (no push type suffix: Apple refuses one).
    /// - Throws: ``PushRequestError/missingTopic`` for an empty bundle id.
    public init(apnsID: APNsID = APNsID(), channelOperation: ChannelOperation, bundleID: String)
        throws(PushRequestError)
    {
        guard !bundleID.isEmpty else { throw .missingTopic }
        self.apnsID = apnsID
        destination = .channels(channelOperation)
        topic = bundleID
        pushType = .liveActivity
        priority = .immediate
        payload = channelOperation.body
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
