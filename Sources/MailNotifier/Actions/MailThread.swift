/// An email thread, as the mark-read use case takes it.
public struct MailThread: Hashable, Sendable {
    public var id: ThreadID
    public var accountId: AccountID
    public var subject: String

    public init(id: ThreadID, accountId: AccountID, subject: String) {
        self.id = id
        self.accountId = accountId
        self.subject = subject
    }
}
