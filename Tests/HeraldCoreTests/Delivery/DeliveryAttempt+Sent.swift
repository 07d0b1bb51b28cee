import Foundation
import HeraldCore

extension DeliveryAttempt {
    /// `delivery` accepted by Apple now, as the engine records it.
    static func sent(_ delivery: ClaimedDelivery) -> DeliveryAttempt {
        DeliveryAttempt(
            delivery: delivery, outcome: .sent(correctedEnvironment: nil), httpStatus: 200, reason: nil, latency: 0.01,
            payload: nil, errorMessage: nil, feedbackID: nil, finishedAt: Date())
    }
}
