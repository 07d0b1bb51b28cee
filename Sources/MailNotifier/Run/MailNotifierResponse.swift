/// `mail-notifier respond`, and `sync` for each interaction Herald recorded: carries out the user's answer to a
/// banner against the mailbox file through ``NotificationResponseHandler``, then withdraws the thread's
/// banners and updates the badge.
public enum MailNotifierResponse {
    public struct Result: Sendable {
        /// The state to save: the badge may have changed.
        public let state: DeliveryState
        /// Why the action or the clean-up failed, if it did.
        public let failure: NotificationActionError?
    }

    /// Answers the banner of `emailId`.
    ///
    /// The thread comes from the mailbox, or from the delivered banners when the email has left the
    /// mailbox, so its banner can still be withdrawn.
    /// - Parameters:
    ///   - replyText: the text of a ``NotificationAction/reply``.
    ///   - interaction: the Herald interaction that asked for it, if one did: its reply is filed under its id,
    ///     so answering the same interaction again files no second reply.
    public static func respond(
        to emailId: EmailID, with action: NotificationAction, replyText: String?,
        answering interaction: InteractionID? = nil, mailbox: MailboxFile, state: DeliveryState,
        center: any NotificationCenterProviding
    ) async -> Result {
        let known = await mailbox.mailbox.email(id: emailId)?.threadId
        guard let thread = known ?? state.delivered.last(where: { $0.emailId == emailId })?.threadId else {
            return Result(state: state, failure: .emailNotFound(emailId))
        }
        // Responding filters no email, so the service never reads settings.
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: mailbox, delivered: state.delivered,
            badgeCount: state.badgeCount)
        let compose: any ComposeEmailUseCase =
            interaction.map { InteractionReplyOutbox(mailbox: mailbox, interaction: $0) } ?? mailbox
        let handler = NotificationResponseHandler(
            repository: mailbox, markRead: mailbox, threadActions: mailbox, compose: compose, service: service,
            coordinator: NotificationSyncCoordinator(service: service))
        let response = NotificationResponse(
            action: action,
            userInfo: [
                NotificationUserInfo.Key.emailId: emailId.rawValue, NotificationUserInfo.Key.threadId: thread.rawValue,
            ],
            replyText: replyText)
        var failure: NotificationActionError?
        do {
            try await handler.handle(response)
        } catch {
            failure = error
        }
        var next = state
        next.badgeCount = await service.badgeCount
        return Result(state: next, failure: failure)
    }
}
