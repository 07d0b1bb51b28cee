/// The four things that happen to feedback and that Herald turns into pushes (seed §1.3).
public enum EventType: String, Sendable, CaseIterable, Codable {
    case newFeedback = "new_feedback"
    case newComment = "new_comment"
    case newVote = "new_vote"
    case statusChange = "status_change"
}
