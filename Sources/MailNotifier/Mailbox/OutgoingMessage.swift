/// A message written from a banner (a reply), kept in the mailbox file until the mail client sends it:
/// `mail-notifier` speaks no SMTP, so sending is handed over, never faked.
public struct OutgoingMessage: Hashable, Sendable, Codable {
    public enum State: String, Hashable, Sendable, Codable {
        /// Saved; not to be sent yet.
        case draft
        /// To be sent once the mail client's undo-send delay has passed.
        case queued
        /// To be sent at once: a reply from a banner skips the undo delay, as there is no screen to
        /// offer undo on (NOTIF-06d).
        case sendNow = "send-now"
    }

    /// Derived from the account and `messageId`, like every ``EmailID``.
    public var id: EmailID
    /// The `Message-ID` header the mail client sends it with.
    public var messageId: String
    public var state: State
    public var draft: Draft
    /// The Herald interaction whose reply this is, when `mail-notifier sync` filed it: a run repeated after a
    /// crash finds it here and files no second reply.
    public var interactionId: InteractionID?

    public init(id: EmailID, messageId: String, state: State, draft: Draft, interactionId: InteractionID? = nil) {
        self.id = id
        self.messageId = messageId
        self.state = state
        self.draft = draft
        self.interactionId = interactionId
    }
}
