/// One person's vote on one feedback, as Herald records it so a later status change reaches the voter.
public struct FeedbackVote: Sendable, Equatable {
    /// The backend's feedback id, as ``FeedbackReference`` checked it.
    public var feedbackID: String
    public var voter: PersonReference
}
