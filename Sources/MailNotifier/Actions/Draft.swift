/// A draft as the compose use case saves it: the eleven fields of NOTIF-06d, under the same names in JSON.
public struct Draft: Hashable, Sendable, Codable {
    public static let replyPrefix = "Re: "

    public var draftId: EmailID?
    public var accountId: AccountID
    public var threadId: ThreadID
    public var toAddresses: [String]
    public var ccAddresses: [String]
    public var bccAddresses: [String]
    public var subject: String
    public var bodyPlain: String
    public var inReplyTo: String?
    public var references: String
    public var attachments: [String]

    public init(
        draftId: EmailID? = nil, accountId: AccountID, threadId: ThreadID, toAddresses: [String],
        ccAddresses: [String] = [], bccAddresses: [String] = [], subject: String, bodyPlain: String,
        inReplyTo: String?, references: String, attachments: [String] = []
    ) {
        self.draftId = draftId
        self.accountId = accountId
        self.threadId = threadId
        self.toAddresses = toAddresses
        self.ccAddresses = ccAddresses
        self.bccAddresses = bccAddresses
        self.subject = subject
        self.bodyPlain = bodyPlain
        self.inReplyTo = inReplyTo
        self.references = references
        self.attachments = attachments
    }

    /// A reply to `original`: sent to its sender, subject prefixed with "Re: " unless it already is,
    /// threaded through `In-Reply-To` and `References`.
    public static func reply(to original: Email, text: String) -> Draft {
        Draft(
            accountId: original.accountId,
            threadId: original.threadId,
            toAddresses: [original.fromAddress],
            subject: original.subject.hasPrefix(replyPrefix) ? original.subject : replyPrefix + original.subject,
            bodyPlain: text,
            inReplyTo: original.messageId,
            references: [original.references, original.messageId].compactMap { $0 }.joined(separator: " ")
        )
    }
}
