/// Every email of the mailbox, plus the replies written from banners: what the badge counts, what the
/// notification actions change, and which threads still exist.
///
/// Its JSON form is `{"emails": [Email…], "outbox": [OutgoingMessage…]}`; `outbox` may be absent.
public struct Mailbox: Hashable, Sendable, Codable {
    public private(set) var emails: [Email]
    public internal(set) var outbox: [OutgoingMessage]

    public init(emails: [Email] = [], outbox: [OutgoingMessage] = []) {
        self.emails = emails
        self.outbox = outbox
    }

    private enum CodingKeys: String, CodingKey {
        case emails, outbox
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            emails: try container.decode([Email].self, forKey: .emails),
            outbox: try container.decodeIfPresent([OutgoingMessage].self, forKey: .outbox) ?? [])
    }

    /// The badge (NOTIF-16): unread emails filed in an inbox, each counted once even when listed twice.
    public var unreadInboxCount: Int {
        Set(emails.lazy.filter { !$0.isRead && $0.isInInbox }.map(\.id)).count
    }

    /// Threads with at least one email in any folder; muted ids of other threads are stale (E-21).
    public var threadIds: Set<ThreadID> {
        Set(emails.map(\.threadId))
    }

    public func email(id: EmailID) -> Email? {
        emails.first { $0.id == id }
    }

    /// The thread as the mark-read use case takes it, named after its oldest email; `nil` when no email
    /// belongs to it.
    public func thread(id: ThreadID) -> MailThread? {
        let oldest = emails.lazy.filter { $0.threadId == id }.min { $0.dateReceived < $1.dateReceived }
        return oldest.map { MailThread(id: id, accountId: $0.accountId, subject: $0.subject) }
    }

    /// Adds the emails of a sync batch the mailbox does not hold yet, and returns how many were added.
    ///
    /// An email already present is kept as it is: the mailbox may hold a newer state (read, archived) than
    /// the batch that first brought it.
    @discardableResult
    public mutating func add(missing batch: [Email]) -> Int {
        var known = Set(emails.map(\.id))
        let added = batch.filter { known.insert($0.id).inserted }
        emails.append(contentsOf: added)
        return added.count
    }

    /// Changes every email of `thread`.
    /// - Throws: ``MailboxError/threadNotFound(_:)`` when no email belongs to it, so an action on a thread
    ///   that is gone fails visibly instead of doing nothing (E-18).
    mutating func updateEmails(inThread thread: ThreadID, _ change: (inout Email) -> Void) throws(MailboxError) {
        var found = false
        for index in emails.indices where emails[index].threadId == thread {
            change(&emails[index])
            found = true
        }
        guard found else { throw .threadNotFound(thread) }
    }
}

extension Mailbox: InboxUnreadCounting {
    public func inboxUnreadCount() async -> Int {
        unreadInboxCount
    }
}
