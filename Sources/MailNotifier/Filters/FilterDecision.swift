/// What the pipeline decided for one email, and why.
public enum FilterDecision: Hashable, Sendable {
    /// The sender is a VIP: every other filter was skipped.
    case vip
    /// Every filter let the email through.
    case passed
    /// The named filter suppressed the email; later filters did not run.
    case rejected(by: FilterName)

    public var allowsNotification: Bool {
        switch self {
        case .vip, .passed: true
        case .rejected: false
        }
    }
}
