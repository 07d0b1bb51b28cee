import APNsCore
import HTTPTypes
import HeraldCore

extension ChannelFailure {
    /// Apple's refusals a caller can act on, and a missing signing key, are 409s that say what to do; other
    /// refusals are 502 `apns_refused` with Apple's reason; no answer is a 503.
    var apiError: APIError {
        switch self {
        case .refused(_, .cannotCreateChannelConfig):
            APIError(
                .conflict, .conflict,
                "the app has as many channels as Apple allows (CannotCreateChannelConfig); delete unused ones")
        case .refused(_, .featureNotEnabled):
            APIError(
                .conflict, .conflict,
                "broadcasts are not enabled for this app (FeatureNotEnabled): enable the capability with Apple")
        case .refused(_, .channelNotRegistered):
            APIError(
                .conflict, .conflict, "Apple no longer knows this channel (ChannelNotRegistered); delete it",
                field: "channelId")
        case .refused(let status, let reason):
            APIError(.badGateway, .apnsRefused, "APNs refused the request with \(status) \(reason.name)")
        case .noSigningKey(let why):
            APIError(.conflict, .conflict, "\(why): add a signing key of the app's team (herald apns-keys add)")
        case .unavailable(let why):
            APIError(.serviceUnavailable, .unavailable, "APNs did not answer: \(why)")
        }
    }
}
