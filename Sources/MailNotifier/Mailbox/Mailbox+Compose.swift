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
        let messageId = "<\(UUID().uuidString.lowercased())@mail-notifier.invalid>"
        let id = EmailID.stable(accountId: draft.accountId, messageId: messageId)
        outbox.append(OutgoingMessage(id: id, messageId: messageId, state: .draft, draft: draft))
        return id
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

    private func outboxIndex(of id: EmailID) throws(MailboxError) -> Int {
        guard let index = outbox.firstIndex(where: { $0.id == id }) else { throw .messageNotFound(id) }
        return index
    }
}
