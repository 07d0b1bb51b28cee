import ArgumentParser
import Foundation
import MailNotifier

/// `mail-notifier`: runs one batch of synced emails through the notification rules and sends the
/// banners, badge and removals to Herald, printing one JSON decision per email.
@main
struct MailNotifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail-notifier",
        abstract: "Decide which new emails notify, and deliver them through Herald.",
        discussion: """
            Prints one JSON object per email: {"emailId", "decision", "reason"}. Exits with 3 when \
            Herald did not accept a banner or the badge; those emails are not remembered as delivered.
            """
    )

    @Option(help: "JSON array of newly synced emails.")
    var emails: String

    @Option(help: "Notification settings JSON (missing or invalid: defaults, with a warning).")
    var settings: String

    @Option(help: "State file remembering delivered emails across runs (created when missing).")
    var state: String

    @Option(name: .customLong("herald-url"), help: "Herald's base URL, e.g. http://127.0.0.1:8080.")
    var heraldURL: String

    @Option(
        name: .customLong("api-key"),
        help: "Herald API key (default: the HERALD_API_KEY environment variable).")
    var apiKey: String?

    @Option(help: "Herald's external id of the mailbox owner.")
    var user: String

    @Flag(help: "The emails come from a background sync (1-hour recency window instead of 5 minutes).")
    var background = false

    @Option(name: .customLong("active-folder"), help: "Folder type on screen; its emails only update the badge.")
    var activeFolder: String?

    @Flag(name: .customLong("first-launch"), help: "This is the first sync of a session: nothing notifies.")
    var firstLaunch = false

    @Option(help: "Fixes the clock (ISO 8601), e.g. 2026-02-19T23:30:00Z.")
    var now: String?

    @Option(help: "Seconds to wait for Herald per request.")
    var timeout: Int = 10

    func validate() throws {
        guard URL(string: heraldURL)?.scheme != nil else {
            throw ValidationError("--herald-url must be an absolute URL")
        }
        if let now, ISO8601Timestamp.parse(now) == nil {
            throw ValidationError("--now must be an ISO 8601 timestamp")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        guard let key = apiKey ?? ProcessInfo.processInfo.environment["HERALD_API_KEY"] else {
            throw ValidationError("give --api-key or set HERALD_API_KEY")
        }
        let emailsURL = URL(fileURLWithPath: emails)
        let emailsData: Data
        do {
            emailsData = try Data(contentsOf: emailsURL)
        } catch {
            throw RunError.emailsFile(path: emails, reason: String(describing: error))
        }
        let batch = try MailNotifierRun.decodeEmails(emailsData, path: emails)
        let loadedSettings = await SettingsStore(
            fileURL: URL(fileURLWithPath: settings),
            onWarning: { warning in Self.printWarning(warning.description) }
        ).settings
        let stateURL = URL(fileURLWithPath: state)
        let previous = try DeliveryState.load(from: stateURL)
        let client = HeraldClient(
            configuration: HeraldClientConfiguration(
                baseURL: URL(string: heraldURL)!, apiKey: APIKey(key), timeout: .seconds(timeout)))
        let options = RunOptions(
            fromBackground: background, activeFolderType: activeFolder.map(FolderType.init(rawValue:)),
            firstLaunch: firstLaunch, now: now.flatMap(ISO8601Timestamp.parse) ?? Date())
        let result = await MailNotifierRun.run(
            emails: batch, settings: loadedSettings, state: previous,
            center: HeraldNotificationCenter(client: client, userId: user), options: options)
        for line in result.lines {
            print(line.json)
        }
        try result.state.save(to: stateURL)
        if case .failed(_, let error) = result.badge {
            Self.printWarning("badge update failed: \(error)")
        }
        if result.hasFailures {
            throw ExitCode(3)
        }
    }

    private static func printWarning(_ message: String) {
        FileHandle.standardError.write(Data("mail-notifier: warning: \(message)\n".utf8))
    }
}
