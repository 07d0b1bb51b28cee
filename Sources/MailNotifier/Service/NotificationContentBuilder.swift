/// Builds the banner for an email (NOTIF-04).
public enum NotificationContentBuilder {
    /// The body shows at most this many characters of the snippet.
    public static let maximumBodyLength = 100

    /// Title is the sender's name (or address when there is none), subtitle the subject, body the first
    /// 100 characters of the snippet (grapheme clusters, so an emoji is never cut in half).
    public static func build(from email: Email) -> NotificationContent {
        NotificationContent(
            identifier: NotificationRequestID(emailId: email.id),
            title: email.fromName ?? email.fromAddress,
            subtitle: email.subject,
            body: String(email.snippet?.prefix(maximumBodyLength) ?? ""),
            threadIdentifier: email.threadId,
            userInfo: NotificationUserInfo(of: email)
        )
    }
}
