/// One user's overrides for one project. `nil` means "use the personal toggle".
public struct ProjectOverrides: Sendable, Equatable {
    public var muted = false
    public var newFeedback: Bool?
    public var newComments: Bool?
    public var votes: Bool?
    public var statusChanges: Bool?
    public var emailMuted = false
    public var emailNewFeedback: Bool?
    public var emailNewComments: Bool?

    public init() {}

    /// The push override for `type`.
    public func override(for type: EventType) -> Bool? {
        switch type {
        case .newFeedback: newFeedback
        case .newComment: newComments
        case .newVote: votes
        case .statusChange: statusChanges
        }
    }
}
