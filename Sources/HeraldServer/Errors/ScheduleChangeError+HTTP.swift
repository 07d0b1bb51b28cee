import HeraldCore

extension ScheduleChangeError {
    /// The answer for a refused change: 422 naming what stands in the way.
    var apiError: APIError {
        switch self {
        case .notScheduled(let state):
            .validation("only a scheduled notification can change; this one is \(state)", field: "state")
        case .sendAtAfterExpiration: .validation("must come before the notification's expiration", field: "sendAt")
        case .payloadTooLarge: .validation("the payload would be larger than APNs' 4096 bytes", field: "alert")
        }
    }
}
