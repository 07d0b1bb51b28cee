import HTTPTypes
import HeraldCore

extension ScheduleChangeError {
    /// The answer for a refused change: 409, since what stands in the way is the stored notification (its state,
    /// its expiration, its payload), named as the field to look at.
    var apiError: APIError {
        switch self {
        case .notScheduled(let state):
            APIError(
                .conflict, .conflict, "only a scheduled notification can change; this one is \(state)", field: "state")
        case .sendAtAfterExpiration:
            APIError(.conflict, .conflict, "must come before the notification's expiration", field: "sendAt")
        case .payloadTooLarge:
            APIError(.conflict, .conflict, "the payload would be larger than APNs' 4096 bytes", field: "alert")
        }
    }
}
