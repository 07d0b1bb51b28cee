public import APNsCore
public import Foundation

/// The platforms Herald registers devices for.
public enum DevicePlatform: String, Sendable, CaseIterable, Codable {
    case iOS
    case macOS
}

/// Which APNs server knows a device's token.
public enum PushEnvironment: String, Sendable, CaseIterable, Codable {
    case sandbox
    case production
}

/// Why a device no longer receives pushes.
public enum DeactivationReason: String, Sendable, CaseIterable, Codable {
    case unregistered
    case expiredToken = "expired_token"
    case badDeviceToken = "bad_device_token"
    case removedByUser = "removed_by_user"
    /// A Live Activity's token, once the app reported the activity ended.
    case activityEnded = "activity_ended"
    /// Its user registered more devices (or the device more Live Activity tokens) than the limit allows, and this
    /// was the least recently registered (``RegistrationLimits``).
    case overLimit = "over_limit"
    /// A service's token (VoIP, widgets, …) Apple said was issued for another topic.
    case notForTopic = "not_for_topic"
}

/// A registered device, without its token (which Herald never hands out).
public struct Device: Sendable, Equatable {
    public var id: UUID
    public var platform: DevicePlatform
    public var environment: PushEnvironment
    public var topic: String?
    /// The app the device belongs to; nil only before a default app is defined.
    public var appID: ExternalID?
    public var appVersion: String?
    public var osVersion: String?
    public var isActive: Bool
    public var deactivationReason: DeactivationReason?
    public var createdAt: Date
    public var registeredAt: Date
    public var lastUsedAt: Date?
    /// The services the device has an active token for, besides its own.
    public var pushTokenKinds: [ServiceTokenKind]
}

/// What a device registration carries besides the token and the user.
public struct DeviceRegistration: Sendable {
    public var token: DeviceToken
    public var platform: DevicePlatform
    public var environment: PushEnvironment
    /// The apns-topic; `nil` means the configured bundle id.
    public var topic: String?
    /// The app the device registers for; `nil`: the app whose bundle id is `topic`, else the default app.
    public var app: ExternalID?
    public var appVersion: String?
    public var osVersion: String?

    public init(
        token: DeviceToken, platform: DevicePlatform, environment: PushEnvironment, topic: String? = nil,
        app: ExternalID? = nil, appVersion: String? = nil, osVersion: String? = nil
    ) {
        self.token = token
        self.platform = platform
        self.environment = environment
        self.topic = topic
        self.app = app
        self.appVersion = appVersion
        self.osVersion = osVersion
    }
}
