/// A user's personal push settings: the global toggle, one toggle per event type, and how pushes look.
public struct PushPreferences: Sendable, Equatable, Codable {
    public var enabled = true
    public var newFeedback = true
    public var newComments = true
    public var votes = true
    public var statusChanges = true
    public var sound = true
    public var badge = true

    public init() {}

    /// The personal toggle for `type`.
    public func isEnabled(for type: EventType) -> Bool {
        switch type {
        case .newFeedback: newFeedback
        case .newComment: newComments
        case .newVote: votes
        case .statusChange: statusChanges
        }
    }
}

/// A user's personal email settings, kept for the mail notifier.
public struct EmailPreferences: Sendable, Equatable, Codable {
    public var enabled = true
    public var newFeedback = true
    public var newComments = true
    public var votes = true
    public var statusChanges = true

    public init() {}
}
