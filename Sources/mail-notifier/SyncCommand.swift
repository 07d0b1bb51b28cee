import ArgumentParser
import Foundation
import MailNotifier

/// `mail-notifier [sync]`: applies the actions taken on earlier banners, then runs one batch of synced emails
/// through the notification rules and sends the banners and the badge to Herald, printing one JSON decision
/// per email.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply the actions taken on earlier banners, then send the banners and badge of new emails.",
        discussion: """
            First applies the actions the user chose on earlier banners, which the app reported to Herald \
            (GET /api/v1/interactions of type email for --user, read on from the cursor in the state file): \
            MARK_READ_ACTION, ARCHIVE_ACTION, DELETE_ACTION and REPLY_ACTION as respond applies them, each \
            once; opens, dismissals and other identifiers are passed over, and so are emails no longer in the \
            mailbox, with a warning. Then prints one JSON object per email: {"emailId", "decision", "reason"}. \
            The batch's emails that the mailbox lacks are added to it; muted threads with no email left in the \
            mailbox are unmuted. Without a state file the run is the first launch: nothing notifies, no earlier \
            interaction is applied, the badge is sent and the state file created. The badge is sent only when \
            it changed. Exits with 3 when Herald did not accept a banner, a removal or the badge, or its \
            interactions could not be read (the new emails are handled all the same); those emails are not \
            remembered as delivered, and unread interactions wait for the next run. Exits with 1 when an \
            action could not be written to the mailbox; it is tried again by the next run.
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
        let client = try herald.client()
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
        let stateURL = files.stateURL
        let feed = InteractionFeed(
            client: client, userId: herald.user, checkpoint: { state throws(RunError) in try state.save(to: stateURL) })
        let result = try await MailNotifierRun.run(
            batch: batch, mailbox: mailbox, settings: settingsStore, state: previous,
            center: herald.notificationCenter(client), interactions: feed, options: options)
        for line in result.lines {
            print(line.json)
        }
        try result.state.save(to: files.stateURL)
        if let interactions = result.interactions {
            if let failure = interactions.readFailure {
                StandardError.warn("interactions not read, the next run tries again: \(failure)")
            }
            for warning in interactions.outcomes.compactMap(\.warning) {
                StandardError.warn(warning)
            }
        }
        if let failure = result.pruneFailure {
            StandardError.warn("muted threads not pruned: \(failure)")
        }
        if case .failed(_, let error) = result.badge {
            StandardError.warn("badge update failed: \(error)")
        }
        if result.interactions?.hasActionFailure == true {
            throw ExitCode.failure
        }
        if result.hasFailures {
            throw ExitCode(3)
        }
    }
}
