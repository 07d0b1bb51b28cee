import MailNotifier

/// A notification center that records every call and can be told to fail.
actor RecordingNotificationCenter: NotificationCenterProviding {
    private(set) var added: [NotificationContent] = []
    private(set) var removed: [[NotificationRequestID]] = []
    private(set) var badgeCounts: [Int] = []
    private var failingEmailIds: Set<EmailID> = []
    private var failure: HeraldError = .timeout(after: .seconds(1))
    private var addDelay: Duration = .zero
    private var badgeFailure: HeraldError?

    /// Makes every `add` take this long, as a slow gateway would.
    func delayAdds(by delay: Duration) {
        addDelay = delay
    }

    func failAdds(for ids: Set<EmailID>, with error: HeraldError = .timeout(after: .seconds(1))) {
        failingEmailIds = ids
        failure = error
    }

    func add(_ content: NotificationContent) async throws(HeraldError) {
        if addDelay > .zero {
            try? await Task.sleep(for: addDelay)
        }
        if failingEmailIds.contains(content.userInfo.emailId) {
            throw failure
        }
        added.append(content)
    }

    func removeDeliveredNotifications(withIdentifiers identifiers: [NotificationRequestID]) async throws(HeraldError) {
        removed.append(identifiers)
    }

    /// Makes every badge update fail with `error`, or succeed again with `nil`.
    func failBadges(with error: HeraldError?) {
        badgeFailure = error
    }

    func setBadgeCount(_ count: Int) async throws(HeraldError) {
        if let badgeFailure {
            throw badgeFailure
        }
        badgeCounts.append(count)
    }

    var addedEmailIds: [EmailID] { added.map(\.userInfo.emailId) }
    var removedIdentifiers: [String] { removed.flatMap { $0.map(\.rawValue) } }
}

/// A mailbox with a fixed unread count.
struct FixedMailbox: InboxUnreadCounting {
    let count: Int

    func inboxUnreadCount() async -> Int { count }
}

/// A mailbox whose unread count a test changes, as reading or archiving mail would.
actor SettableMailbox: InboxUnreadCounting {
    private var count: Int

    init(count: Int) {
        self.count = count
    }

    func set(_ count: Int) {
        self.count = count
    }

    func inboxUnreadCount() async -> Int { count }
}
