import ArgumentParser
import Foundation
import MailNotifier

/// `mail-notifier respond`: what the user chose on a banner, applied to the mailbox file; then the
/// thread's banners are withdrawn through Herald and the badge updated (NOTIF-06).
struct RespondCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "respond",
        abstract: "Apply a banner's action to the mailbox, withdraw the banner and update the badge.",
        discussion: """
            MARK_READ marks the thread read, ARCHIVE moves it from the inbox to the archive, DELETE moves it to \
            the trash, REPLY files a reply in the mailbox's outbox for the mail client to send at once. Then a \
            removal push names the thread's banners by the collapse ids they were sent with, and the badge is \
            sent if it changed. Exits with 1 when the action failed and 3 when Herald did not accept the \
            removal or the badge; the banner is withdrawn and the badge updated even when the action failed.
            """
    )

    @Option(name: .customLong("email-id"), help: "The id of the email whose banner was answered.")
    var emailId: String

    @Option(help: "What the user chose.")
    var action: ResponseActionArgument

    @Option(help: "The reply's text (REPLY only).")
    var text: String?

    @OptionGroup var files: FileOptions

    @OptionGroup var herald: HeraldOptions

    func validate() throws {
        guard !emailId.isEmpty else { throw ValidationError("--email-id must not be empty") }
        if action == .reply {
            guard let text, !text.isEmpty else {
                throw ValidationError("--action REPLY needs --text with the reply's text")
            }
        } else if text != nil {
            throw ValidationError("--text applies only to --action REPLY, not \(action.rawValue)")
        }
    }

    func run() async throws {
        let center = herald.notificationCenter(try herald.client())
        let mailbox = try MailboxFile(fileURL: files.mailboxURL)
        guard let state = try DeliveryState.load(from: files.stateURL) else {
            throw ValidationError(
                "--state: no state file at \(files.state); a banner is answered after a sync run has created it")
        }
        let result = await MailNotifierResponse.respond(
            to: EmailID(rawValue: emailId), with: action.action, replyText: text, mailbox: mailbox, state: state,
            center: center)
        try result.state.save(to: files.stateURL)
        switch result.failure {
        case nil:
            break
        case .emailNotFound(let id)?:
            throw ValidationError("--email-id \(id): no such email in \(files.mailbox)")
        case .cleanupFailed(let error)?:
            StandardError.warn("banner or badge not updated: \(error)")
            throw ExitCode(3)
        case let failure?:
            throw RespondFailure(action: action, reason: failure.description)
        }
    }
}

/// The action itself failed; the banner was still withdrawn and the badge updated.
struct RespondFailure: Error, CustomStringConvertible {
    let action: ResponseActionArgument
    let reason: String

    var description: String { "\(action.rawValue) failed: \(reason)" }
}
