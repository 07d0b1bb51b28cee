/// `deliveries.state`: where one (notification, device) pair is in the outbox.
public enum DeliveryState: String, Sendable, CaseIterable {
    /// `deferred`: waiting for the end of the user's quiet hours (`next_attempt_at`), then claimed like `pending`.
    case pending, deferred, sending, sent, failed
    case tokenExpired = "token_expired"
    case expired, canceled

    /// Whether the delivery is over: it leaves the outbox, and its final log row records it (Migrations/0029).
    public var isFinal: Bool {
        switch self {
        case .pending, .deferred, .sending: false
        case .sent, .failed, .tokenExpired, .expired, .canceled: true
        }
    }
}

/// `push_notification_logs.status`: what one attempt came to.
public enum DeliveryLogStatus: String, Sendable, CaseIterable {
    case sent, failed
    case tokenExpired = "token_expired"
    case retrying, expired, canceled
}
