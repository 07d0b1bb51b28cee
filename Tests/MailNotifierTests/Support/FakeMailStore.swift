import MailNotifier

struct MailStoreFailure: Error, CustomStringConvertible {
    let description: String
}

/// A mail store that records what the notification actions asked of it. Its badge counts the stored
/// emails of threads no action has handled yet.
actor FakeMailStore: EmailRepository, MarkReadUseCase, ThreadActionsUseCase, ComposeEmailUseCase, InboxUnreadCounting {
    enum Call: Equatable {
        case markAllRead(ThreadID)
        case archive(ThreadID)
        case delete(ThreadID)
        case saveDraft(Draft)
        case queue(EmailID)
        case send(EmailID)
    }

    private(set) var calls: [Call] = []
    private var emails: [EmailID: Email] = [:]
    private var threads: [ThreadID: MailThread] = [:]
    private var deletedThreads: Set<ThreadID> = []
    private var handledThreads: Set<ThreadID> = []

    func store(_ email: Email) {
        emails[email.id] = email
        threads[email.threadId] = MailThread(id: email.threadId, accountId: email.accountId, subject: email.subject)
    }

    func email(id: EmailID) async throws -> Email? { emails[id] }

    func thread(id: ThreadID) async throws -> MailThread? { threads[id] }

    func markAllRead(in thread: MailThread) async throws {
        calls.append(.markAllRead(thread.id))
        handledThreads.insert(thread.id)
    }

    func archiveThread(id: ThreadID) async throws {
        calls.append(.archive(id))
        handledThreads.insert(id)
    }

    func deleteThread(id: ThreadID) async throws {
        guard deletedThreads.insert(id).inserted else {
            throw MailStoreFailure(description: "thread \(id) already deleted")
        }
        calls.append(.delete(id))
        handledThreads.insert(id)
    }

    func saveDraft(_ draft: Draft) async throws -> EmailID {
        calls.append(.saveDraft(draft))
        return "draft-1"
    }

    func queueForSending(draftId: EmailID) async throws {
        calls.append(.queue(draftId))
    }

    func executeSend(draftId: EmailID) async throws {
        calls.append(.send(draftId))
    }

    func inboxUnreadCount() async -> Int {
        emails.values.filter { !handledThreads.contains($0.threadId) }.count
    }
}
