/// Which text a recipient of an event sees: voters of a status change get their own (seed §7.3).
public enum PayloadVariant: String, Sendable, CaseIterable, Codable, CodingKeyRepresentable {
    case `default`
    case voter
}

/// The title and body of an event's push (seed Appendix A).
public struct EventTemplate: Sendable, Equatable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }

    /// The text for `event` as seen by recipients of `variant`.
    public init(_ event: Event, variant: PayloadVariant = .default) {
        let title = event.feedback.title
        switch event.type {
        case .newFeedback:
            self.title = "New Feedback"
            body = title
        case .newComment:
            self.title = "New Comment"
            body = "Comment on: \(title)"
        case .newVote:
            let count = event.voteCount ?? 0
            self.title = "New Vote"
            body = "\(title) now has \(count) vote\(count == 1 ? "" : "s")"
        case .statusChange:
            let status = event.newStatus?.displayName ?? ""
            self.title = "Status Updated"
            body = variant == .voter ? "Feedback you voted on: \(status)" : "\(title) is now \(status)"
        }
    }
}
