import APNsCore
import Foundation

/// What the delivery log records of Apple's answer.
extension PushResult {
    var httpStatus: Int? {
        switch self {
        case .accepted: 200
        case .rejected(let rejection): rejection.status
        case .failed: nil
        }
    }

    /// Apple's `apns-unique-id`, when it sent one (sandbox answers do): the handle of Apple's Push Notifications
    /// Console.
    var uniqueID: String? {
        if case .accepted(let receipt) = self { receipt.uniqueID } else { nil }
    }

    /// Apple's `timestamp` of a refusal (with a 410: when it last knew the token valid).
    var appleTimestamp: Date? {
        if case .rejected(let rejection) = self { rejection.timestamp } else { nil }
    }

    /// Apple's reason, or Herald's for a missing answer.
    var reason: DeliveryReason? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): .apple(rejection.reason)
        case .failed(let failure): .noAnswer(failure)
        }
    }

    var errorMessage: String? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): "APNs answered \(rejection.status) \(rejection.reason.name)"
        case .failed(let failure): failure.description
        }
    }
}
