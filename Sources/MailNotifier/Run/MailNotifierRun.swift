public import Foundation

/// The decisions of one `mail-notifier` run, kept apart from argument parsing and file handling so
/// they can be tested directly.
public enum MailNotifierRun {
    public struct Result: Sendable {
        /// One line per input email, in input order.
        public let lines: [DecisionLine]
        /// The state to save for the next run.
        public let state: DeliveryState
        public let badge: ProcessingReport.BadgeOutcome

        /// Whether Herald failed to take a banner or the badge.
        public var hasFailures: Bool {
            if case .failed = badge { return true }
            return lines.contains { $0.decision == NotificationDecision.Kind.failed.rawValue }
        }
    }

    /// Decodes the emails file: a JSON array of emails with the spec's field names.
    public static func decodeEmails(_ data: Data, path: String) throws(RunError) -> [Email] {
        do {
            return try JSONDecoder().decode([Email].self, from: data)
        } catch {
            throw .emailsFile(path: path, reason: String(describing: error))
        }
    }

    /// Runs one sync batch through the notification service.
    /// - Parameters:
    ///   - emails: the newly synced emails; they also stand for the mailbox when counting the badge.
    ///   - center: where banners, badge and removals go (Herald in production).
    public static func run(
        emails: [Email], settings: NotificationSettings, state: DeliveryState,
        center: any NotificationCenterProviding, options: RunOptions
    ) async -> Result {
        let now = options.now
        let service = NotificationService(
            center: center, settings: { settings }, mailbox: EmailListMailbox(emails: emails),
            delivered: state.delivered, now: { now })
        if !options.firstLaunch {
            await service.markFirstLaunchComplete()
        }
        let report = await service.processNewEmails(
            emails, fromBackground: options.fromBackground, activeFolderType: options.activeFolderType)
        return Result(
            lines: report.decisions.map(DecisionLine.init),
            state: DeliveryState(delivered: await service.deliveredNotifications),
            badge: report.badge)
    }
}
