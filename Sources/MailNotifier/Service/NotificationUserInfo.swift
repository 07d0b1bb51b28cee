/// The custom data every email notification carries, so actions can find the email, its thread, its
/// account and the address to reply to (NOTIF-04).
public struct NotificationUserInfo: Hashable, Sendable {
    public var emailId: EmailID
    public var threadId: ThreadID
    public var accountId: AccountID
    public var fromAddress: String

    public init(emailId: EmailID, threadId: ThreadID, accountId: AccountID, fromAddress: String) {
        self.emailId = emailId
        self.threadId = threadId
        self.accountId = accountId
        self.fromAddress = fromAddress
    }

    /// The data of `email`'s banner.
    public init(of email: Email) {
        self.init(
            emailId: email.id, threadId: email.threadId, accountId: email.accountId, fromAddress: email.fromAddress)
    }

    /// Reads the keys back from a notification's payload; `nil` if one is missing.
    public init?(dictionary: [String: String]) {
        guard let emailId = dictionary[Key.emailId], let threadId = dictionary[Key.threadId],
            let accountId = dictionary[Key.accountId], let fromAddress = dictionary[Key.fromAddress]
        else { return nil }
        self.init(
            emailId: EmailID(rawValue: emailId), threadId: ThreadID(rawValue: threadId),
            accountId: AccountID(rawValue: accountId), fromAddress: fromAddress)
    }

    public var dictionary: [String: String] {
        [
            Key.emailId: emailId.rawValue,
            Key.threadId: threadId.rawValue,
            Key.accountId: accountId.rawValue,
            Key.fromAddress: fromAddress,
        ]
    }

    public enum Key {
        public static let emailId = "emailId"
        public static let threadId = "threadId"
        public static let accountId = "accountId"
        public static let fromAddress = "fromAddress"
    }
}
