/// The one definition of whether a recipient gets a push (seed §3.3).
///
/// Global toggle off → never; project muted → never; otherwise the project override when set, else the personal
/// toggle for the type. ``NotificationExpander`` applies the same rule to a whole audience in SQL
/// (``PreferenceResolution/sqlReason``); a test enumerates every combination and checks both agree.
public enum PreferenceResolution {
    /// The decision for one recipient.
    /// - Parameters:
    ///   - globalEnabled: The user's global push toggle.
    ///   - muted: Whether the user muted the project the push is about (`false` when there is no project).
    ///   - personal: The personal toggle for the type; `nil` for custom types, which only the global toggle and
    ///     the project mute govern.
    ///   - override: The project override for the type; `nil` when none is set.
    /// - Returns: `nil` to notify, else why not.
    public static func suppression(globalEnabled: Bool, muted: Bool, personal: Bool?, override: Bool?)
        -> SuppressionReason?
    {
        guard globalEnabled else { return .globalOff }
        guard !muted else { return .muted }
        if let override { return override ? nil : .overrideOff }
        if personal == false { return .typeOff }
        return nil
    }

    /// Whether `type` reaches a user with `personal` settings and `overrides` for the project.
    public static func shouldNotify(type: EventType, personal: PushPreferences, overrides: ProjectOverrides?) -> Bool {
        suppression(
            globalEnabled: personal.enabled, muted: overrides?.muted ?? false, personal: personal.isEnabled(for: type),
            override: overrides?.override(for: type)) == nil
    }

    /// The same rule as a SQL expression over `u` (users), `p` (project_member_preferences, left-joined, so its
    /// columns may be NULL) and `n` (the notification, for its `type` and `respect_preferences`): NULL to notify,
    /// else the reason as text.
    static let sqlReason = """
        CASE
            WHEN NOT n.respect_preferences THEN NULL
            WHEN NOT u.push_notifications_enabled THEN 'global_off'
            WHEN coalesce(p.push_muted, FALSE) THEN 'muted'
            WHEN (CASE n.type
                    WHEN 'new_feedback' THEN p.push_notify_new_feedback
                    WHEN 'new_comment' THEN p.push_notify_new_comments
                    WHEN 'new_vote' THEN p.push_notify_votes
                    WHEN 'status_change' THEN p.push_notify_status_changes
                  END) IS NOT NULL
                THEN (CASE WHEN (CASE n.type
                    WHEN 'new_feedback' THEN p.push_notify_new_feedback
                    WHEN 'new_comment' THEN p.push_notify_new_comments
                    WHEN 'new_vote' THEN p.push_notify_votes
                    WHEN 'status_change' THEN p.push_notify_status_changes
                  END) THEN NULL ELSE 'override_off' END)
            WHEN (CASE n.type
                    WHEN 'new_feedback' THEN u.push_notify_new_feedback
                    WHEN 'new_comment' THEN u.push_notify_new_comments
                    WHEN 'new_vote' THEN u.push_notify_votes
                    WHEN 'status_change' THEN u.push_notify_status_changes
                  END) IS FALSE THEN 'type_off'
            ELSE NULL
        END
        """
}
