/// What became of one email in a sync batch, and what decided it.
public struct NotificationDecision: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        /// A banner was delivered to Herald.
        case notified
        /// No banner; the email only counts towards the badge.
        case badgeOnly = "badge-only"
        /// No banner, by rule.
        case suppressed
        /// A banner was due but Herald did not accept it; the email stays un-notified so a later sync
        /// can try again.
        case failed
    }

    public enum Reason: Hashable, Sendable {
        case vip
        case passed
        case firstLaunch
        case recency
        case filter(FilterName)
        case duplicate
        case batchLimit
        case activeFolder
        case deliveryFailed(HeraldError)

        /// The reason's name in the `mail-notifier` output.
        public var name: String {
            switch self {
            case .vip: "vip"
            case .passed: "passed"
            case .firstLaunch: "first-launch"
            case .recency: "recency"
            case .filter(let filter): filter.rawValue
            case .duplicate: "duplicate"
            case .batchLimit: "batch-limit"
            case .activeFolder: "active-folder"
            case .deliveryFailed(let error): error.code
            }
        }
    }

    public let emailId: EmailID
    public let reason: Reason

    public init(emailId: EmailID, reason: Reason) {
        self.emailId = emailId
        self.reason = reason
    }

    public var kind: Kind {
        switch reason {
        case .vip, .passed: .notified
        case .batchLimit, .activeFolder: .badgeOnly
        case .firstLaunch, .recency, .filter, .duplicate: .suppressed
        case .deliveryFailed: .failed
        }
    }
}
