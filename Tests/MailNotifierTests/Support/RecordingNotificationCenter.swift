import MailNotifier

/// A notification center that records every call and can be told to fail.
actor RecordingNotificationCenter: NotificationCenterProviding {
    private(set) var added: [NotificationContent] = []
    private(set) var removed: [[NotificationRequestID]] = []
    private(set) var badgeCounts: [Int] = []
    private var failingEmailIds: Set<EmailID> = []
    private var failure: HeraldError = .timeout(after: .seconds(1))
    private var addDelay: Duration = .zero

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

    func setBadgeCount(_ count: Int) async throws(HeraldError) {
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
