/// The mail store's answer to "how many unread emails are in inbox folders?" (NOTIF-16). Unread mail
/// in archive, spam or other folders does not count.
public protocol InboxUnreadCounting: Sendable {
    func inboxUnreadCount() async -> Int
}

/// A mailbox given as a list of emails, as the `mail-notifier` command receives it.
public struct EmailListMailbox: InboxUnreadCounting {
    public let emails: [Email]

    public init(emails: [Email]) {
        self.emails = emails
    }

    /// Counts each email once, even when it appears twice in the list.
    public func inboxUnreadCount() async -> Int {
        Set(emails.lazy.filter { !$0.isRead && $0.isInInbox }.map(\.id)).count
    }
}
