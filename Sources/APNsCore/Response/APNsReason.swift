/// Every `reason` Apple documents for a refused push, plus ``unknown(_:)`` for any it adds later.
public enum APNsReason: Hashable, Sendable, CustomStringConvertible {
    // 400
    case badCollapseID, badDeviceToken, badExpirationDate, badMessageID, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    // 400, broadcasts and channel management
    case missingChannelID, badChannelID, channelNotRegistered, cannotCreateChannelConfig, featureNotEnabled
    case badRequestParams, badRequestPayload, missingPushType
    // 403
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken
    case missingProviderToken, unrelatedKeyIDInToken, badEnvironmentKeyIDInToken
    // 404, 405, 410, 413
    case badPath, methodNotAllowed, expiredToken, unregistered, payloadTooLarge
    // 429, 500, 503
    case tooManyProviderTokenUpdates, tooManyRequests, internalServerError, serviceUnavailable, shutdown
    /// A reason this version of Herald does not know.
    case unknown(String)

    private static let byName: [String: APNsReason] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.name, $0) })

    /// Every documented reason.
    public static let known: [APNsReason] = [
        .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .missingChannelID, .badChannelID, .channelNotRegistered,
        .cannotCreateChannelConfig, .featureNotEnabled, .badRequestParams, .badRequestPayload, .missingPushType,
        .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIDInToken,
        .badEnvironmentKeyIDInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// Parses Apple's reason string.
    public init(name: String) {
        self = Self.byName[name] ?? .unknown(name)
    }

    /// Apple's spelling.
    public var name: String {
        switch self {
        case .badCollapseID: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageID: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .missingChannelID: "MissingChannelId"
        case .badChannelID: "BadChannelId"
        case .channelNotRegistered: "ChannelNotRegistered"
        case .cannotCreateChannelConfig: "CannotCreateChannelConfig"
        case .featureNotEnabled: "FeatureNotEnabled"
        case .badRequestParams: "BadRequestParams"
        case .badRequestPayload: "BadRequestPayload"
        case .missingPushType: "MissingPushType"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .unrelatedKeyIDInToken: "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIDInToken: "BadEnvironmentKeyIdInToken"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let name): name
        }
    }

    /// The HTTP status Apple sends with this reason (nil for unknown reasons).
    public var status: Int? {
        switch self {
        case .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .missingChannelID, .badChannelID, .channelNotRegistered,
            .cannotCreateChannelConfig, .featureNotEnabled, .badRequestParams, .badRequestPayload, .missingPushType:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: nil
        }
    }

    public var description: String { name }
}
