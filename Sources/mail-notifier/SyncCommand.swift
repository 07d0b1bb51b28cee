import ArgumentParser
import Foundation
import MailNotifier

/// `mail-notifier [sync]`: runs one batch of synced emails through the notification rules and sends the
/// banners and the badge to Herald, printing one JSON decision per email.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the banners and badge of newly synced emails through Herald.",
        discussion: """
            Prints one JSON object per email: {"emailId", "decision", "reason"}. The batch's emails that the \
            mailbox lacks are added to it; muted threads with no email left in the mailbox are unmuted. Without \
            a state file the run is the first launch: nothing notifies, the badge is sent and the state file \
            created. The badge is sent only when it changed. Exits with 3 when Herald did not accept a banner \
            or the badge; those emails are not remembered as delivered.
            """
    )

    @Option(help: "JSON array of newly synced emails.")
    var emails: String

    @Option(help: "Notification settings JSON (missing or invalid: defaults, with a warning).")
    var settings: String

    @OptionGroup var files: FileOptions

    @OptionGroup var herald: HeraldOptions

    @Flag(help: "The emails come from a background sync (1-hour recency window instead of 5 minutes).")
    var background = false

    @Option(name: .customLong("active-folder"), help: "Folder type on screen; its emails only update the badge.")
    var activeFolder: String?

    @Option(help: "Fixes the clock (ISO 8601), e.g. 2026-02-19T23:30:00Z.")
    var now: String?

    func validate() throws {
        if let now, ISO8601Timestamp.parse(now) == nil {
            throw ValidationError("--now must be an ISO 8601 timestamp such as 2026-02-19T23:30:00Z, got '\(now)'")
        }
    }

    func run() async throws {
        let center = try herald.notificationCenter()
        let emailsData: Data
        do {
            emailsData = try Data(contentsOf: URL(fileURLWithPath: emails))
        } catch {
            throw RunError.emailsFile(path: emails, reason: String(describing: error))
        }
        let batch = try MailNotifierRun.decodeEmails(emailsData, path: emails)
        let mailbox = try MailboxFile(fileURL: files.mailboxURL)
        let settingsStore = SettingsStore(
            fileURL: URL(fileURLWithPath: settings), onWarning: { StandardError.warn($0.description) })
        let previous = try DeliveryState.load(from: files.stateURL)
        let options = RunOptions(
            fromBackground: background, activeFolderType: activeFolder.map(FolderType.init(rawValue:)),
            now: now.flatMap(ISO8601Timestamp.parse) ?? Date())
        let result = try await MailNotifierRun.run(
            batch: batch, mailbox: mailbox, settings: settingsStore, state: previous, center: center,
            options: options)
        for line in result.lines {
            print(line.json)
        }
        try result.state.save(to: files.stateURL)
        if let failure = result.pruneFailure {
            StandardError.warn("muted threads not pruned: \(failure)")
        }
        if case .failed(_, let error) = result.badge {
            StandardError.warn("badge update failed: \(error)")
        }
        if result.hasFailures {
            throw ExitCode(3)
        }
    }
}
