/// What an interaction with an email banner asks of the mailbox.
enum RequestedAction: Hashable, Sendable {
    /// One of the banner's four actions, on the email the banner showed.
    case apply(NotificationAction, emailId: EmailID, replyText: String?)
    /// A tap that only opens the app, a dismissal, or an identifier the banner's category does not have.
    case nothing
    /// An action that can never be applied: the banner names no email, or a reply has no text.
    case unusable(reason: String)

    /// Reads the action from the interaction's identifier and the email from the banner's data, where
    /// ``HeraldNotificationCenter/bannerRequest(for:userId:)`` put its id.
    init(_ interaction: Interaction) {
        guard let action = NotificationAction(rawValue: interaction.action), action != .open else {
            self = .nothing
            return
        }
        guard case .string(let emailId)? = interaction.data[NotificationUserInfo.Key.emailId], !emailId.isEmpty
        else {
            self = .unusable(reason: "its notification's data names no \(NotificationUserInfo.Key.emailId)")
            return
        }
        if action == .reply && (interaction.text ?? "").isEmpty {
            self = .unusable(reason: "the reply to email \(emailId) has no text")
            return
        }
        self = .apply(action, emailId: EmailID(rawValue: emailId), replyText: action == .reply ? interaction.text : nil)
    }
}
