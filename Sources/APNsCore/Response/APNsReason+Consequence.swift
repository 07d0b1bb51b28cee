/// What Herald should do about a refused push; one switch so no caller decides alone.
public enum RejectionConsequence: Hashable, Sendable {
    /// The device token is gone: deactivate the device, never retry.
    case deactivateDevice
    /// Transient: retry later with backoff.
    case retryLater
    /// Herald's key, team, topic or environment is wrong: alert the operator; retry after fixing.
    case fixConfiguration
    /// This push is malformed; sending it again cannot help.
    case drop
}

extension APNsReason {
    /// The consequence of this reason, following Apple's advice (never retry BadDeviceToken,
    /// DeviceTokenNotForTopic, Forbidden, ExpiredToken, Unregistered, PayloadTooLarge; back off on
    /// 429 and 5xx) and seed 004 Appendix B.
    public var consequence: RejectionConsequence {
        switch self {
        case .badDeviceToken, .expiredToken, .unregistered: .deactivateDevice
        case .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout,
            .expiredProviderToken, .tooManyProviderTokenUpdates:
            .retryLater
        case .badCertificate, .badCertificateEnvironment, .forbidden, .invalidProviderToken, .missingProviderToken,
            .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken, .badTopic, .topicDisallowed,
            .deviceTokenNotForTopic, .featureNotEnabled:
            .fixConfiguration
        case .badCollapseID, .badExpirationDate, .badMessageID, .badPriority, .duplicateHeaders, .invalidPushType,
            .missingDeviceToken, .missingTopic, .payloadEmpty, .badPath, .methodNotAllowed, .payloadTooLarge,
            .missingChannelID, .badChannelID, .channelNotRegistered, .cannotCreateChannelConfig, .badRequestParams,
            .badRequestPayload, .missingPushType:
            .drop
        case .unknown: .retryLater
        }
    }
}
