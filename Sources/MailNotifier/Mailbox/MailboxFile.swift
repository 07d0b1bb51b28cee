public import Foundation

/// The mailbox file that `mail-notifier` reads and the notification actions change. Every change is
/// written atomically before it counts, so a crash never leaves half a file and an action reported done
/// is on disk.
///
/// It is the mail store of ``NotificationResponseHandler`` (repository, mark read, thread actions,
/// compose) and the badge source of ``NotificationService``.
public actor MailboxFile {
    public let fileURL: URL
    public private(set) var mailbox: Mailbox

    /// Reads the mailbox at `fileURL`.
    /// - Throws: ``MailboxError/missing(path:)`` or ``MailboxError/unreadable(path:reason:)``.
    public init(fileURL: URL) throws(MailboxError) {
        self.fileURL = fileURL
        guard FileManager.default.fileExists(atPath: fileURL.path) else { throw .missing(path: fileURL.path) }
        do {
            mailbox = try JSONDecoder().decode(Mailbox.self, from: Data(contentsOf: fileURL))
        } catch {
            throw .unreadable(path: fileURL.path, reason: String(describing: error))
        }
    }

    /// Applies `change` and writes the result; on any failure the file and ``mailbox`` stay as they were.
    @discardableResult
    public func update<T>(_ change: (inout Mailbox) throws(MailboxError) -> T) throws(MailboxError) -> T {
        var updated = mailbox
        let result = try change(&updated)
        guard updated != mailbox else { return result }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(updated).write(to: fileURL, options: .atomic)
        } catch {
            throw .writeFailed(path: fileURL.path, reason: String(describing: error))
        }
        mailbox = updated
        return result
    }
}

extension MailboxFile: InboxUnreadCounting {
    public func inboxUnreadCount() async -> Int {
        mailbox.unreadInboxCount
    }
}

extension MailboxFile: EmailRepository {
    public func email(id: EmailID) async throws -> Email? {
        mailbox.email(id: id)
    }

    public func thread(id: ThreadID) async throws -> MailThread? {
        mailbox.thread(id: id)
    }
}

extension MailboxFile: MarkReadUseCase, ThreadActionsUseCase {
    public func markAllRead(in thread: MailThread) async throws {
        try update { (mailbox: inout Mailbox) throws(MailboxError) in try mailbox.markAllRead(inThread: thread.id) }
    }

    public func archiveThread(id: ThreadID) async throws {
        try update { (mailbox: inout Mailbox) throws(MailboxError) in try mailbox.archiveThread(id) }
    }

    public func deleteThread(id: ThreadID) async throws {
        try update { (mailbox: inout Mailbox) throws(MailboxError) in try mailbox.deleteThread(id) }
    }
}

extension MailboxFile: ComposeEmailUseCase {
    public func saveDraft(_ draft: Draft) async throws -> EmailID {
        try update { (mailbox: inout Mailbox) throws(MailboxError) in try mailbox.saveDraft(draft) }
    }

    public func queueForSending(draftId: EmailID) async throws {
        try update { (mailbox: inout Mailbox) throws(MailboxError) in try mailbox.queueForSending(draftId) }
    }

    /// Hands the message to the mail client to send at once; `mail-notifier` itself sends nothing.
    public func executeSend(draftId: EmailID) async throws {
        try update { (mailbox: inout Mailbox) throws(MailboxError) in try mailbox.sendNow(draftId) }
    }
}
