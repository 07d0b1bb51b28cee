public import Foundation

/// Decides which newly synced emails raise a banner and keeps banners and badge in step with the
/// mailbox (NOTIF-01, 04, 05, 16–19), with Herald standing in for the device's notification center.
///
/// A batch goes through first-launch suppression, the recency window, the filter pipeline, dedup,
/// active-folder suppression and the banner cap, in that order; every email gets one
/// ``NotificationDecision``. An email counts as delivered only once Herald accepted its banner.
public actor NotificationService {
    public typealias SettingsSource = @Sendable () async -> NotificationSettings

    let center: any NotificationCenterProviding
    private let settings: SettingsSource
    private let mailbox: any InboxUnreadCounting
    let pipeline: NotificationFilterPipeline
    let configuration: NotificationServiceConfiguration
    private let now: @Sendable () -> Date
    private let machineTimeZone: TimeZone
    private(set) var delivered: DeliveredNotificationSet
    /// Emails whose banner is being posted. The actor is re-entrant while it waits for Herald, so a
    /// concurrent batch must see these as taken, or the same email could be posted twice.
    private(set) var inFlight: Set<EmailID> = []

    /// `true` until ``markFirstLaunchComplete()``: the first sync of a session fetches history the user
    /// is about to see in the app, so none of it notifies.
    public private(set) var isFirstLaunch = true

    /// The badge the devices were last sent, or `nil` when unknown; a badge equal to it is not sent again.
    public private(set) var badgeCount: Int?

    /// - Parameters:
    ///   - delivered: earlier deliveries, oldest first, to rebuild the dedup set after a restart.
    ///   - badgeCount: the badge Herald last accepted, e.g. from a state file; `nil` sends the next one
    ///     whatever its value.
    ///   - now: the clock; tests and `mail-notifier --now` fix it.
    ///   - machineTimeZone: the zone quiet hours are read in when the settings name none.
    public init(
        center: any NotificationCenterProviding,
        settings: @escaping SettingsSource,
        mailbox: any InboxUnreadCounting,
        pipeline: NotificationFilterPipeline = .standard,
        configuration: NotificationServiceConfiguration = NotificationServiceConfiguration(),
        delivered: [DeliveredNotification] = [],
        badgeCount: Int? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        machineTimeZone: TimeZone = .current
    ) {
        self.center = center
        self.settings = settings
        self.mailbox = mailbox
        self.pipeline = pipeline
        self.configuration = configuration
        self.now = now
        self.badgeCount = badgeCount
        self.machineTimeZone = machineTimeZone
        self.delivered = DeliveredNotificationSet(capacity: configuration.dedupCapacity, entries: delivered)
    }

    public func markFirstLaunchComplete() {
        isFirstLaunch = false
    }

    /// The delivered emails, oldest first, for saving across restarts.
    public var deliveredNotifications: [DeliveredNotification] { delivered.entries }

    public func hasDelivered(_ emailId: EmailID) -> Bool {
        delivered.contains(emailId)
    }

    /// Replaces the dedup set, e.g. with what a state file or the devices report as delivered.
    public func rebuildDelivered(from entries: [DeliveredNotification]) {
        delivered = DeliveredNotificationSet(capacity: configuration.dedupCapacity, entries: entries)
    }

    /// Decides and posts banners for newly synced emails, then updates the badge.
    /// - Parameters:
    ///   - fromBackground: selects the 1-hour window instead of the 5-minute one.
    ///   - activeFolderType: the folder type on screen; its emails update the badge only, across every
    ///     account (unified inbox).
    public func processNewEmails(
        _ emails: [Email], fromBackground: Bool, activeFolderType: FolderType?
    ) async -> ProcessingReport {
        var reasons: [EmailID: NotificationDecision.Reason] = [:]
        if isFirstLaunch {
            for email in emails {
                reasons[email.id] = .firstLaunch
            }
        } else {
            let context = FilterContext(settings: await settings(), now: now(), machineTimeZone: machineTimeZone)
            let candidates = selectCandidates(
                emails, context: context, fromBackground: fromBackground, activeFolderType: activeFolderType,
                reasons: &reasons)
            let banners = capBanners(candidates, reasons: &reasons)
            inFlight.formUnion(banners.map(\.email.id))
            let results = await post(banners)
            inFlight.subtract(banners.map(\.email.id))
            for (banner, result) in results {
                switch result {
                case .success:
                    delivered.insert(DeliveredNotification(emailId: banner.email.id, threadId: banner.email.threadId))
                    reasons[banner.email.id] = banner.reason
                case .failure(let error):
                    reasons[banner.email.id] = .deliveryFailed(error)
                }
            }
        }
        let badge = await badgeOutcome()
        var reported: Set<EmailID> = []
        let decisions = emails.map { email in
            let first = reported.insert(email.id).inserted
            // The same email twice in one batch (two folders) notifies once; the second copy is a duplicate.
            let reason: NotificationDecision.Reason =
                first ? reasons[email.id, default: .duplicate] : Self.repeatReason(reasons[email.id])
            return NotificationDecision(emailId: email.id, reason: reason)
        }
        return ProcessingReport(decisions: decisions, badge: badge)
    }

    /// Withdraws the banners of the given emails.
    public func removeNotifications(forEmailIds emailIds: [EmailID]) async throws(HeraldError) {
        guard !emailIds.isEmpty else { return }
        try await center.removeDeliveredNotifications(withIdentifiers: emailIds.map(NotificationRequestID.init))
    }

    /// Withdraws every banner delivered for the thread.
    /// - Parameter extra: emails known to have a banner in the thread although the dedup set may have
    ///   forgotten them (e.g. the one whose banner the user acted on).
    public func removeNotifications(forThreadId thread: ThreadID, including extra: [EmailID] = [])
        async throws(HeraldError)
    {
        var ids = delivered.emailIds(inThread: thread)
        for id in extra where !ids.contains(id) {
            ids.append(id)
        }
        try await removeNotifications(forEmailIds: ids)
    }

    /// Sets the badge to the number of unread emails in inbox folders, unless the devices already show
    /// that number: an unchanged badge costs a push and a device wake-up for nothing.
    @discardableResult
    public func updateBadgeCount() async throws(HeraldError) -> ProcessingReport.BadgeOutcome {
        let outcome = await badgeOutcome()
        if case .failed(_, let error) = outcome {
            throw error
        }
        return outcome
    }

    private func badgeOutcome() async -> ProcessingReport.BadgeOutcome {
        let count = await mailbox.inboxUnreadCount()
        guard count != badgeCount else { return .unchanged(count) }
        do {
            try await center.setBadgeCount(count)
        } catch {
            return .failed(count: count, error: error)
        }
        badgeCount = count
        return .updated(count)
    }

    /// A second copy of an email shares a rule-based suppression with the first; otherwise it is a duplicate.
    private static func repeatReason(_ firstReason: NotificationDecision.Reason?) -> NotificationDecision.Reason {
        guard let firstReason else { return .duplicate }
        switch firstReason {
        case .firstLaunch, .recency, .filter: return firstReason
        default: return .duplicate
        }
    }
}
