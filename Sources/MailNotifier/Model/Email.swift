public import Foundation

/// An email as the notifier sees it: what the filters, the content builder and the reply draft need.
///
/// Its JSON form uses the VaultMail field names (`id`, `threadId`, `accountId`, `fromAddress`, `fromName`,
/// `subject`, `snippet`, `dateReceived` as ISO 8601, `isRead`, `isSpam`, `aiCategory`, `folderTypes`, plus
/// `messageId` and `references` for replies).
public struct Email: Hashable, Sendable {
    public var id: EmailID
    public var threadId: ThreadID
    public var accountId: AccountID
    public var fromAddress: String
    public var fromName: String?
    public var subject: String
    public var snippet: String?
    public var dateReceived: Date
    public var isRead: Bool
    public var isSpam: Bool
    public var aiCategory: AICategory?
    /// The types of every folder the email is filed in (an email can sit in Inbox and Starred at once).
    public var folderTypes: Set<FolderType>
    /// The `Message-ID` header, for `In-Reply-To` and `References` of a reply.
    public var messageId: String?
    /// The `References` header of the email, space separated.
    public var references: String?

    public init(
        id: EmailID,
        threadId: ThreadID,
        accountId: AccountID,
        fromAddress: String,
        fromName: String? = nil,
        subject: String,
        snippet: String? = nil,
        dateReceived: Date,
        isRead: Bool = false,
        isSpam: Bool = false,
        aiCategory: AICategory? = nil,
        folderTypes: Set<FolderType> = [.inbox],
        messageId: String? = nil,
        references: String? = nil
    ) {
        self.id = id
        self.threadId = threadId
        self.accountId = accountId
        self.fromAddress = fromAddress
        self.fromName = fromName
        self.subject = subject
        self.snippet = snippet
        self.dateReceived = dateReceived
        self.isRead = isRead
        self.isSpam = isSpam
        self.aiCategory = aiCategory
        self.folderTypes = folderTypes
        self.messageId = messageId
        self.references = references
    }

    /// Whether the email is filed in at least one inbox-type folder.
    public var isInInbox: Bool { folderTypes.contains(.inbox) }
}

extension Email: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, threadId, accountId, fromAddress, fromName, subject, snippet, dateReceived
        case isRead, isSpam, aiCategory, folderTypes, messageId, references
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let dateText = try container.decode(String.self, forKey: .dateReceived)
        guard let date = ISO8601Timestamp.parse(dateText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .dateReceived, in: container, debugDescription: "not an ISO 8601 timestamp")
        }
        self.init(
            id: try container.decode(EmailID.self, forKey: .id),
            threadId: try container.decode(ThreadID.self, forKey: .threadId),
            accountId: try container.decode(AccountID.self, forKey: .accountId),
            fromAddress: try container.decode(String.self, forKey: .fromAddress),
            fromName: try container.decodeIfPresent(String.self, forKey: .fromName),
            subject: try container.decodeIfPresent(String.self, forKey: .subject) ?? "",
            snippet: try container.decodeIfPresent(String.self, forKey: .snippet),
            dateReceived: date,
            isRead: try container.decodeIfPresent(Bool.self, forKey: .isRead) ?? false,
            isSpam: try container.decodeIfPresent(Bool.self, forKey: .isSpam) ?? false,
            aiCategory: try container.decodeIfPresent(AICategory.self, forKey: .aiCategory),
            folderTypes: Set(try container.decodeIfPresent([FolderType].self, forKey: .folderTypes) ?? []),
            messageId: try container.decodeIfPresent(String.self, forKey: .messageId),
            references: try container.decodeIfPresent(String.self, forKey: .references)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(threadId, forKey: .threadId)
        try container.encode(accountId, forKey: .accountId)
        try container.encode(fromAddress, forKey: .fromAddress)
        try container.encodeIfPresent(fromName, forKey: .fromName)
        try container.encode(subject, forKey: .subject)
        try container.encodeIfPresent(snippet, forKey: .snippet)
        try container.encode(ISO8601Timestamp.format(dateReceived), forKey: .dateReceived)
        try container.encode(isRead, forKey: .isRead)
        try container.encode(isSpam, forKey: .isSpam)
        try container.encodeIfPresent(aiCategory, forKey: .aiCategory)
        try container.encode(folderTypes.map(\.rawValue).sorted(), forKey: .folderTypes)
        try container.encodeIfPresent(messageId, forKey: .messageId)
        try container.encodeIfPresent(references, forKey: .references)
    }
}
