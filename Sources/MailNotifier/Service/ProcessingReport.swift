/// The result of one ``NotificationService/processNewEmails(_:fromBackground:activeFolderType:)`` call.
public struct ProcessingReport: Hashable, Sendable {
    public enum BadgeOutcome: Hashable, Sendable {
        /// The devices were sent this count.
        case updated(Int)
        /// The devices already showed this count, so nothing was sent.
        case unchanged(Int)
        case failed(count: Int, error: HeraldError)
    }

    /// One decision per input email, in input order.
    public let decisions: [NotificationDecision]
    public let badge: BadgeOutcome

    public func decision(for emailId: EmailID) -> NotificationDecision? {
        decisions.first { $0.emailId == emailId }
    }

    public var notifiedIds: [EmailID] {
        decisions.filter { $0.kind == .notified }.map(\.emailId)
    }
}
