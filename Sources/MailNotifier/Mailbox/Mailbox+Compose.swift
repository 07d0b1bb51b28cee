import Foundation

extension Mailbox {
    /// Saves `draft` in the outbox and returns its id. A draft with a `draftId` replaces that message; a
    /// new one gets a fresh `Message-ID`.
    /// - Throws: ``MailboxError/messageNotFound(_:)`` when `draftId` names no outgoing message.
    public mutating func saveDraft(_ draft: Draft) throws(MailboxError) -> EmailID {
        if let existing = draft.draftId {
            let index = try outboxIndex(of: existing)
            outbox[index].draft = draft
            outbox[index].state = .draft
            return existing
        }
        return appendDraft(draft, answering: nil)
    }

    /// Saves the reply to a Herald interaction, once: when the outbox already holds the reply to `interaction`
    /// (filed by a run that stopped before it could record so), that message's id is returned and nothing
    /// changes.
    public mutating func saveDraft(_ draft: Draft, answering interaction: InteractionID) -> EmailID {
        if let filed = outbox.first(where: { $0.interactionId == interaction }) {
            return filed.id
        }
        return appendDraft(draft, answering: interaction)
    }

    /// Marks a saved draft for sending after the undo delay.
    public mutating func queueForSending(_ id: EmailID) throws(MailboxError) {
        let index = try outboxIndex(of: id)
        guard outbox[index].state == .draft else {
            throw .messageNotReady(id, state: outbox[index].state, expected: .draft)
        }
        outbox[index].state = .queued
    }

    /// Lets a queued message go at once, without the undo delay.
    public mutating func sendNow(_ id: EmailID) throws(MailboxError) {
        let index = try outboxIndex(of: id)
        guard outbox[index].state == .queued else {
            throw .messageNotReady(id, state: outbox[index].state, expected: .queued)
        }
        outbox[index].state = .sendNow
    }

    /// The outgoing message `id`, if the outbox holds it.
    public func outgoingMessage(id: EmailID) -> OutgoingMessage? {
        outbox.first { $0.id == id }
    }

    /// Adds a new draft with a fresh `Message-ID`.
    private mutating func appendDraft(_ draft: Draft, answering interaction: InteractionID?) -> EmailID {
        let messageId = "<\(UUID().uuidString.lowercased())@mail-notifier.invalid>"
        let id = EmailID.stable(accountId: draft.accountId, messageId: messageId)
        outbox.append(
            OutgoingMessage(id: id, messageId: messageId, state: .draft, draft: draft, interactionId: interaction))
        return id
    }

    private func outboxIndex(of id: EmailID) throws(MailboxError) -> Int {
        guard let index = outbox.firstIndex(where: { $0.id == id }) else { throw .messageNotFound(id) }
        return index
    }
}
