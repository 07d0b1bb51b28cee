/// What the user did with a banner (NOTIF-03, NOTIF-06). The raw values are the action identifiers
/// registered with the `EMAIL_NOTIFICATION` category.
public enum NotificationAction: String, Hashable, Sendable, CaseIterable {
    case markRead = "MARK_READ_ACTION"
    case archive = "ARCHIVE_ACTION"
    case delete = "DELETE_ACTION"
    case reply = "REPLY_ACTION"
    /// A tap on the banner itself.
    case open = "DEFAULT_ACTION"
}
