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
        /// What became of the interactions with earlier banners; `nil` when the run was given no feed.
        public let interactions: MailNotifierInteractions.Result?

        /// Whether Herald failed to take a banner or the badge, or its interactions could not be read, or it
        /// did not take the removal or badge after an interaction.
        public var hasFailures: Bool {
            if case .failed = badge { return true }
            if interactions?.hasHeraldFailures == true { return true }
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

    /// Runs one sync batch: first applies the actions the user chose on earlier banners (see
    /// ``MailNotifierInteractions``), then files the batch in the mailbox, prunes stale muted threads, decides
    /// and posts the banners, and sends the badge if it changed.
    /// - Parameters:
    ///   - batch: the newly synced emails; those the mailbox lacks are added to it.
    ///   - state: what the previous run left, or `nil` on the first launch, when nothing notifies.
    ///   - center: where banners, badge and removals go (Herald in production).
    ///   - interactions: where the interactions with earlier banners are read; `nil` applies none. When they
    ///     cannot be read the batch is handled all the same.
    /// - Throws: ``RunError/mailboxFile(_:)`` when the batch cannot be written to the mailbox; no banner was
    ///   sent then. What `interactions.checkpoint` throws, before the batch is looked at.
    public static func run(
        batch: [Email], mailbox: MailboxFile, settings: SettingsStore, state: DeliveryState?,
        center: any NotificationCenterProviding, interactions feed: InteractionFeed? = nil, options: RunOptions
    ) async throws(RunError) -> Result {
        var interactions: MailNotifierInteractions.Result?
        if let feed {
            interactions = try await MailNotifierInteractions.apply(
                from: feed, mailbox: mailbox, state: state, center: center)
        }
        var carried = interactions?.state ?? state ?? DeliveryState()
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
            center: center, settings: { snapshot }, mailbox: mailbox, delivered: carried.delivered,
            badgeCount: carried.badgeCount, now: { now }, machineTimeZone: options.machineTimeZone)
        if state != nil {
            await service.markFirstLaunchComplete()
        }
        let report = await service.processNewEmails(
            batch, fromBackground: options.fromBackground, activeFolderType: options.activeFolderType)
        carried.delivered = await service.deliveredNotifications
        carried.badgeCount = await service.badgeCount
        return Result(
            lines: report.decisions.map(DecisionLine.init), state: carried, badge: report.badge,
            unmutedThreads: unmuted, pruneFailure: pruneFailure, interactions: interactions)
    }
}
