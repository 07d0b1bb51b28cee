/// A partial update of a user's personal settings: `nil` leaves a setting alone.
public struct PersonalPreferenceChanges: Sendable, Equatable {
    public var pushEnabled: Bool?
    public var pushNewFeedback: Bool?
    public var pushNewComments: Bool?
    public var pushVotes: Bool?
    public var pushStatusChanges: Bool?
    public var pushSound: Bool?
    public var pushBadge: Bool?
    public var emailEnabled: Bool?
    public var emailNewFeedback: Bool?
    public var emailNewComments: Bool?
    public var emailVotes: Bool?
    public var emailStatusChanges: Bool?
    public var quietHours: QuietHoursChange?

    public init() {}

    /// The columns to set, each with its new value.
    var assignments: [(column: String, value: Bool)] {
        let all: [(String, Bool?)] = [
            ("push_notifications_enabled", pushEnabled), ("push_notify_new_feedback", pushNewFeedback),
            ("push_notify_new_comments", pushNewComments), ("push_notify_votes", pushVotes),
            ("push_notify_status_changes", pushStatusChanges), ("push_sound_enabled", pushSound),
            ("push_badge_enabled", pushBadge), ("email_notifications_enabled", emailEnabled),
            ("email_notify_new_feedback", emailNewFeedback), ("email_notify_new_comments", emailNewComments),
            ("email_notify_votes", emailVotes), ("email_notify_status_changes", emailStatusChanges),
        ]
        return all.compactMap { column, value in value.map { (column, $0) } }
    }
}

/// One change of a project setting that may be cleared: absent leaves it alone, `.clear` removes the override.
public enum OverrideChange: Sendable, Equatable {
    case set(Bool)
    case clear

    var value: Bool? {
        switch self {
        case .set(let value): value
        case .clear: nil
        }
    }
}

/// A partial update of one user's overrides for one project.
public struct ProjectOverrideChanges: Sendable, Equatable {
    public var muted: Bool?
    public var newFeedback: OverrideChange?
    public var newComments: OverrideChange?
    public var votes: OverrideChange?
    public var statusChanges: OverrideChange?
    public var emailMuted: Bool?
    public var emailNewFeedback: OverrideChange?
    public var emailNewComments: OverrideChange?

    public init() {}

    /// The columns to set, each with its new value (`nil` clears the override).
    var assignments: [(column: String, value: Bool?)] {
        var result: [(String, Bool?)] = []
        if let muted { result.append(("push_muted", muted)) }
        if let emailMuted { result.append(("email_muted", emailMuted)) }
        let overrides: [(String, OverrideChange?)] = [
            ("push_notify_new_feedback", newFeedback), ("push_notify_new_comments", newComments),
            ("push_notify_votes", votes), ("push_notify_status_changes", statusChanges),
            ("email_notify_new_feedback", emailNewFeedback), ("email_notify_new_comments", emailNewComments),
        ]
        for (column, change) in overrides {
            if let change { result.append((column, change.value)) }
        }
        return result
    }
}
