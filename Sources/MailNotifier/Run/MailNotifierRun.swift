public import Foundation

/// The decisions of one `mail-notifier` run, kept apart from argument parsing so they can be tested
/// directly.
public enum MailNotifierRun {
    public struct Result: Sendable {
        /// One line per input email, in input order.
        public let lines: [DecisionLine]
        /// The state to save for the next run.
        public let state: DeliveryState
        public let badge: ProcessingReport.BadgeOutcome
        /// Muted threads dropped because no email of theirs is left in the mailbox (E-21).
        public let unmutedThreads: Set<ThreadID>
        /// Why the settings file could not be pruned; the run went on with the muted threads it had.
        public let pruneFailure: SettingsError?

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

    /// Runs one sync batch: files it in the mailbox, prunes stale muted threads, decides and posts the
    /// banners, and sends the badge if it changed.
    /// - Parameters:
    ///   - batch: the newly synced emails; those the mailbox lacks are added to it.
    ///   - state: what the previous run left, or `nil` on the first launch, when nothing notifies.
    ///   - center: where banners, badge and removals go (Herald in production).
    /// - Throws: ``RunError/mailboxFile(_:)`` when the batch cannot be written to the mailbox; nothing was
    ///   sent then.
    public static func run(
        batch: [Email], mailbox: MailboxFile, settings: SettingsStore, state: DeliveryState?,
        center: any NotificationCenterProviding, options: RunOptions
    ) async throws(RunError) -> Result {
        do {
            try await mailbox.update { $0.add(missing: batch) }
        } catch {
            throw .mailboxFile(error)
        }
        var unmuted: Set<ThreadID> = []
        var pruneFailure: SettingsError?
        do {
            unmuted = try await settings.pruneMutedThreads(keeping: await mailbox.mailbox.threadIds)
        } catch {
            pruneFailure = error
        }
        let snapshot = await settings.settings
        let now = options.now
        let service = NotificationService(
            center: center, settings: { snapshot }, mailbox: mailbox, delivered: state?.delivered ?? [],
            badgeCount: state?.badgeCount, now: { now }, machineTimeZone: options.machineTimeZone)
        if state != nil {
            await service.markFirstLaunchComplete()
        }
        let report = await service.processNewEmails(
            batch, fromBackground: options.fromBackground, activeFolderType: options.activeFolderType)
        return Result(
            lines: report.decisions.map(DecisionLine.init),
            state: DeliveryState(delivered: await service.deliveredNotifications, badgeCount: await service.badgeCount),
            badge: report.badge, unmutedThreads: unmuted, pruneFailure: pruneFailure)
    }
}
