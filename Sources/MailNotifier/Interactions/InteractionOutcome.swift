/// What a sync run did with one interaction.
public struct InteractionOutcome: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Applied to the mailbox as `mail-notifier respond` would; `cleanupFailure` says why withdrawing the
        /// thread's banners or sending the badge did not reach Herald.
        case applied(NotificationAction, cleanupFailure: HeraldError?)
        /// An open, a dismissal, or an identifier the email category does not have: nothing to apply.
        case ignored
        /// Not applicable, now or later: the email has left the mailbox, the banner names no email, or a reply
        /// has no text.
        case skipped(reason: String)
        /// The mailbox could not be changed; the interaction and those after it wait for the next run.
        case failed(NotificationActionError)
    }

    public let interactionId: InteractionID
    public let kind: Kind

    public init(interactionId: InteractionID, kind: Kind) {
        self.interactionId = interactionId
        self.kind = kind
    }

    /// What the operator should hear about, on standard error; `nil` when all went as asked.
    public var warning: String? {
        switch kind {
        case .applied(_, let failure?): "interaction \(interactionId): banners or badge not updated: \(failure)"
        case .applied, .ignored: nil
        case .skipped(let reason): "interaction \(interactionId) skipped: \(reason)"
        case .failed(let error): "interaction \(interactionId) not applied, the next run tries again: \(error)"
        }
    }
}
