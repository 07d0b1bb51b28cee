/// Carries out what the user chose on a banner (NOTIF-06): mark read, archive, delete, reply, or open
/// the thread. After every action but open, the thread's banners are withdrawn and the badge updated.
public struct NotificationResponseHandler: Sendable {
    private let repository: any EmailRepository
    private let markRead: any MarkReadUseCase
    private let threadActions: any ThreadActionsUseCase
    private let compose: any ComposeEmailUseCase
    private let service: NotificationService
    private let coordinator: NotificationSyncCoordinator

    public init(
        repository: any EmailRepository, markRead: any MarkReadUseCase, threadActions: any ThreadActionsUseCase,
        compose: any ComposeEmailUseCase, service: NotificationService, coordinator: NotificationSyncCoordinator
    ) {
        self.repository = repository
        self.markRead = markRead
        self.threadActions = threadActions
        self.compose = compose
        self.service = service
        self.coordinator = coordinator
    }

    /// Handles one response.
    /// - Throws: ``NotificationActionError``; the banner is withdrawn and the badge updated first,
    ///   whether the action worked or not.
    public func handle(_ response: NotificationResponse) async throws(NotificationActionError) {
        let key = NotificationUserInfo.Key.threadId
        guard let threadText = response.userInfo[key] else { throw .missingUserInfo(key: key) }
        let thread = ThreadID(rawValue: threadText)
        if response.action == .open {
            await coordinator.requestNavigation(to: thread)
            return
        }
        var failure: NotificationActionError?
        do {
            try await perform(response, thread: thread)
        } catch {
            failure = error
        }
        let emailId = response.userInfo[NotificationUserInfo.Key.emailId].map(EmailID.init(rawValue:))
        do {
            try await service.removeNotifications(forThreadId: thread, including: emailId.map { [$0] } ?? [])
            try await service.updateBadgeCount()
        } catch {
            failure = failure ?? .cleanupFailed(error)
        }
        if let failure {
            throw failure
        }
    }

    private func perform(_ response: NotificationResponse, thread: ThreadID) async throws(NotificationActionError) {
        switch response.action {
        case .markRead:
            let found = try await run(.markRead) { try await repository.thread(id: thread) }
            guard let found else { throw .threadNotFound(thread) }
            try await run(.markRead) { try await markRead.markAllRead(in: found) }
        case .archive:
            try await run(.archive) { try await threadActions.archiveThread(id: thread) }
        case .delete:
            try await run(.delete) { try await threadActions.deleteThread(id: thread) }
        case .reply:
            try await reply(response)
        case .open:
            break
        }
    }

    private func reply(_ response: NotificationResponse) async throws(NotificationActionError) {
        let key = NotificationUserInfo.Key.emailId
        guard let emailText = response.userInfo[key] else { throw .missingUserInfo(key: key) }
        guard let text = response.replyText, !text.isEmpty else { throw .missingReplyText }
        let emailId = EmailID(rawValue: emailText)
        let original = try await run(.reply) { try await repository.email(id: emailId) }
        guard let original else { throw .emailNotFound(emailId) }
        let draftId = try await run(.reply) { try await compose.saveDraft(Draft.reply(to: original, text: text)) }
        // A reply from a banner skips the undo-send delay: there is no screen to offer undo on.
        try await run(.reply) { try await compose.queueForSending(draftId: draftId) }
        try await run(.reply) { try await compose.executeSend(draftId: draftId) }
    }

    private func run<T>(_ action: NotificationAction, _ body: () async throws -> T)
        async throws(NotificationActionError)
        -> T
    {
        do {
            return try await body()
        } catch {
            throw .actionFailed(action, reason: String(describing: error))
        }
    }
}
