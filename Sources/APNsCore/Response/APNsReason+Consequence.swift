/// What Herald does about a refused push. ``APNsReason/consequence`` is the only place a reason gets its meaning:
/// the delivery policy, the engine's send health and the key router all read it, so adding a reason is one line.
public enum RejectionConsequence: Hashable, Sendable, CaseIterable {
    /// The device token is gone (`Unregistered`, `ExpiredToken`): deactivate the device, never retry.
    case deactivateDevice
    /// The token may belong to the other environment (`BadDeviceToken`): send once there, then deactivate.
    case tryOtherEnvironment
    /// The payload is too large: send once shortened, then give up.
    case shortenPayload
    /// Transient (`TooManyRequests`, 500, `IdleTimeout`, `ExpiredProviderToken`, a reason Apple added later): retry
    /// this push later with backoff.
    case retryLater
    /// Apple's service refused rather than the device (503, `TooManyProviderTokenUpdates`): pause sending and put
    /// the push back without spending an attempt.
    case pauseSending
    /// Apple refused this signing key: send with another key of the team; with none left, pause the key.
    case refuseKey
    /// Apple refused the team's credentials as a whole (`Forbidden`, certificate reasons, a missing token): pause
    /// the key until an operator acts.
    case refuseCredentials
    /// The token was issued for another topic (`DeviceTokenNotForTopic`): a service's token (VoIP, widgets, a Live
    /// Activity's, …) reported for another service is deactivated alone; on a device token the configured topic is
    /// what is wrong, so the push fails and the device stays.
    case tokenNotForTopic
    /// The topic or environment is wrong for this push (`BadTopic`, `TopicDisallowed`, …): fail it and keep the
    /// device; the operator fixes the configuration.
    case fixConfiguration
    /// This push is malformed; sending it again cannot help.
    case drop
}

extension APNsReason {
    /// The consequence of this reason, following Apple's advice (never retry a dead token, a malformed push or a
    /// refused topic; back off on 429 and 5xx) and seed 004 Appendix B.
    public var consequence: RejectionConsequence {
        switch self {
        case .expiredToken, .unregistered: .deactivateDevice
        case .badDeviceToken: .tryOtherEnvironment
        case .payloadTooLarge: .shortenPayload
        case .tooManyRequests, .internalServerError, .idleTimeout, .expiredProviderToken: .retryLater
        case .serviceUnavailable, .shutdown, .tooManyProviderTokenUpdates: .pauseSending
        case .invalidProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken: .refuseKey
        case .badCertificate, .badCertificateEnvironment, .forbidden, .missingProviderToken: .refuseCredentials
        case .deviceTokenNotForTopic: .tokenNotForTopic
        case .badTopic, .topicDisallowed, .featureNotEnabled: .fixConfiguration
        case .badCollapseID, .badExpirationDate, .badMessageID, .badPriority, .duplicateHeaders, .invalidPushType,
            .missingDeviceToken, .missingTopic, .payloadEmpty, .badPath, .methodNotAllowed, .missingChannelID,
            .badChannelID, .channelNotRegistered, .cannotCreateChannelConfig, .badRequestParams, .badRequestPayload,
            .missingPushType:
            .drop
        // A reason Apple added after this release: retried with backoff, so it is neither lost nor sent in a loop.
        case .unknown: .retryLater
        }
    }
}
