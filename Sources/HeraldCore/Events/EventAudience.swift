/// Who hears about an event (seed §1.3, §7.3), before preferences and without the actor.
public enum EventAudience: Sendable, CaseIterable {
    /// The project's owner and members.
    case projectMembers
    /// The person who submitted the feedback.
    case submitter
    /// The people who voted on the feedback; they read the ``PayloadVariant/voter`` text.
    case voters
}

extension EventType {
    /// The audiences of this type: owner + members for new feedback; owner + members + submitter for comments;
    /// the submitter for votes; the submitter and the voters for status changes.
    public var audiences: Set<EventAudience> {
        switch self {
        case .newFeedback: [.projectMembers]
        case .newComment: [.projectMembers, .submitter]
        case .newVote: [.submitter]
        case .statusChange: [.submitter, .voters]
        }
    }

    /// The types that reach `audience`, as a SQL list of literals (`'new_feedback', 'new_comment'`).
    static func sqlList(reaching audience: EventAudience) -> String {
        allCases.filter { $0.audiences.contains(audience) }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
