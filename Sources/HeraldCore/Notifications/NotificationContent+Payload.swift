public import APNsCore
public import Foundation

/// How a user wants pushes to look on their devices (seed 002 FR-4).
public struct PushAppearance: Hashable, Sendable {
    /// `users.push_sound_enabled`: when off, payloads carry no sound.
    public var soundEnabled: Bool
    /// `users.push_badge_enabled`: when off, payloads carry no badge.
    public var badgeEnabled: Bool

    public init(soundEnabled: Bool = true, badgeEnabled: Bool = true) {
        self.soundEnabled = soundEnabled
        self.badgeEnabled = badgeEnabled
    }
}

/// Why a notification's content cannot become a push.
public enum NotificationContentError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownPushType(String)
    case invalidPriority(Int)
    case invalidCollapseID
    case request(PushRequestError)

    public var description: String {
        switch self {
        case .unknownPushType(let name): "unknown push type \"\(name)\""
        case .invalidPriority(let value): "priority \(value) is not 10, 5 or 1"
        case .invalidCollapseID: "collapse id must be 1 to 64 bytes"
        case .request(let error): error.description
        }
    }
}

/// A push built from content, ready to be addressed to a device: everything but the token and apns-id.
public struct PushTemplate: Sendable {
    public let payloadJSON: Data
    public let pushType: PushType
    public let priority: PushPriority?
    public let expiration: PushExpiration?
    public let collapseID: CollapseID?

    /// The request for one device. The payload was checked when the template was built, so only the
    /// topic can still be refused.
    public func request(apnsID: APNsID, deviceToken: DeviceToken, bundleID: String) throws(PushRequestError)
        -> PushRequest
    {
        try PushRequest(
            apnsID: apnsID, deviceToken: deviceToken, bundleID: bundleID, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, payloadJSON: payloadJSON)
    }
}

extension NotificationContent {
    /// The APNs payload for a user with `appearance`: sound and badge only when the user wants them.
    public func payload(for appearance: PushAppearance) -> Payload {
        var aps = APS(
            threadID: threadID, category: category, contentAvailable: contentAvailable,
            mutableContent: mutableContent)
        if hasAlert { aps.alert = Alert(title: title, subtitle: subtitle, body: body) }
        if appearance.badgeEnabled { aps.badge = badge }
        if appearance.soundEnabled, let sound { aps.sound = .named(sound) }
        return Payload(aps: aps, custom: data ?? [:])
    }

    /// Builds the push for a user with `appearance`.
    /// - Parameters:
    ///   - expiresAt: The notification's `expires_at`, used when the content names no expiration.
    ///   - payloadLimit: Bytes the payload may take; the body is shortened to fit. Default: the push type's limit.
    /// - Throws: ``NotificationContentError`` when a header value is invalid or the payload cannot fit.
    public func template(
        for appearance: PushAppearance, expiresAt: Date?, payloadLimit: Int? = nil
    ) throws(NotificationContentError) -> PushTemplate {
        guard let type = resolvedPushType else { throw .unknownPushType(pushType ?? "") }
        var pushPriority: PushPriority?
        if let priority {
            guard let parsed = PushPriority(rawValue: priority) else { throw .invalidPriority(priority) }
            pushPriority = parsed
        }
        var collapse: CollapseID?
        if let collapseID {
            guard let parsed = CollapseID(collapseID) else { throw .invalidCollapseID }
            collapse = parsed
        }
        let pushExpiration: PushExpiration? =
            if let expiration {
                expiration == 0 ? .immediately : .at(Date(timeIntervalSince1970: TimeInterval(expiration)))
            } else {
                expiresAt.map { .at($0) }
            }
        let json: Data
        do {
            json = try payload(for: appearance).fitted(
                toLimit: min(payloadLimit ?? type.payloadLimit, type.payloadLimit)
            )
            .json
        } catch {
            throw .request(.payload(error))
        }
        return PushTemplate(
            payloadJSON: json, pushType: type, priority: pushPriority, expiration: pushExpiration, collapseID: collapse)
    }
}
