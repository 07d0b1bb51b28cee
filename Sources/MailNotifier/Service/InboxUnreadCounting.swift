/// The mail store's answer to "how many unread emails are in inbox folders?" (NOTIF-16). Unread mail
/// in archive, spam or other folders does not count.
public protocol InboxUnreadCounting: Sendable {
    func inboxUnreadCount() async -> Int
}
