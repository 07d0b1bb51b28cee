public import APNsCore
public import Foundation

/// What the engine does with one claimed delivery after its attempt (or instead of one). Decided by
/// ``DeliveryPolicy``; carried out in bulk by ``DeliveryStore``.
public enum DeliveryOutcome: Hashable, Sendable {
    /// Apple accepted it. `correctedEnvironment` is set when a BadDeviceToken retry in the other
    /// environment succeeded, so the device's environment must change to it.
    case sent(correctedEnvironment: APNsEnvironment?)
    /// The token is dead: deactivate the device (only if Apple's knowledge is newer than `notBefore`).
    case deactivateDevice(DeactivationReason, appleTimestamp: Date)
    /// BadDeviceToken in the device's own environment: try once in the other one.
    case retryInOtherEnvironment(APNsEnvironment)
    /// Try again at `at` (429, 5xx, connection loss, a withheld deactivation).
    case retry(at: Date, reason: DeliveryReason)
    /// 413: try once more with a shorter body.
    case retryShortened
    /// Finally failed; the device is kept.
    case fail(reason: DeliveryReason)
    /// The notification's expiration passed.
    case expire
    /// The notification was canceled, or the device left its user or was deactivated.
    case cancel(reason: DeliveryReason)
    /// Credentials were refused: stop sending with this key and put the delivery back untouched.
    case pauseKey(reason: DeliveryReason)
    /// Not sent (shutdown, or the key is paused): back to pending, the attempt not counted.
    case release(reason: DeliveryReason)

    /// The row's next state.
    public var state: DeliveryState {
        switch self {
        case .sent: .sent
        case .deactivateDevice: .tokenExpired
        case .retryInOtherEnvironment, .retry, .retryShortened, .pauseKey, .release: .pending
        case .fail: .failed
        case .expire: .expired
        case .cancel: .canceled
        }
    }

    /// The attempt's log status.
    public var logStatus: DeliveryLogStatus {
        switch self {
        case .sent: .sent
        case .deactivateDevice: .tokenExpired
        case .retryInOtherEnvironment, .retry, .retryShortened, .pauseKey, .release: .retrying
        case .fail: .failed
        case .expire: .expired
        case .cancel: .canceled
        }
    }

    /// Whether the claim's attempt is given back (nothing reached Apple, or Apple refused our credentials).
    public var refundsAttempt: Bool {
        switch self {
        case .pauseKey, .release: true
        default: false
        }
    }
}

extension DeliveryOutcome {
    /// The reason recorded when Apple gave none.
    var reason: DeliveryReason? {
        switch self {
        case .sent, .deactivateDevice, .retryInOtherEnvironment, .retryShortened: nil
        case .retry(_, let reason), .fail(let reason), .cancel(let reason), .pauseKey(let reason),
            .release(let reason):
            reason
        case .expire: .expired
        }
    }

    /// Whether the row is due again at once, so idle workers should look now.
    var isDueNow: Bool {
        switch self {
        case .retryInOtherEnvironment, .retryShortened: true
        default: false
        }
    }
}
