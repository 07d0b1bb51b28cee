/// The mailbox's outbox as the reply to a Herald interaction is filed into it: the message carries the
/// interaction's id, so a run repeated after a crash finds the reply it filed, carries it on from where it
/// stopped, and never files a second one.
struct InteractionReplyOutbox: ComposeEmailUseCase {
    let mailbox: MailboxFile
    let interaction: InteractionID

    func saveDraft(_ draft: Draft) async throws -> EmailID {
        try await mailbox.update { (mailbox: inout Mailbox) in mailbox.saveDraft(draft, answering: interaction) }
    }

    func queueForSending(draftId: EmailID) async throws {
        try await mailbox.update { (mailbox: inout Mailbox) throws(MailboxError) in
            // The run that filed the reply may have queued or released it already.
            if let state = mailbox.outgoingMessage(id: draftId)?.state, state != .draft { return }
            try mailbox.queueForSending(draftId)
        }
    }

    func executeSend(draftId: EmailID) async throws {
        try await mailbox.update { (mailbox: inout Mailbox) throws(MailboxError) in
            if mailbox.outgoingMessage(id: draftId)?.state == .sendNow { return }
            try mailbox.sendNow(draftId)
        }
    }
}
