import Foundation
import MailNotifier
import Testing

/// A service on a fixed clock with a recording center; first launch already complete unless asked.
func makeService(
    _ center: RecordingNotificationCenter,
    settings value: NotificationSettings = NotificationSettings(),
    unread: Int = 0,
    firstLaunch: Bool = false,
    delivered: [DeliveredNotification] = [],
    now: Date = noon
) async -> NotificationService {
    let service = NotificationService(
        center: center, settings: { value }, mailbox: FixedMailbox(count: unread), delivered: delivered,
        now: { now })
    if !firstLaunch {
        await service.markFirstLaunchComplete()
    }
    return service
}

@Suite("NotificationService (NOTIF-01, 16–19)")
struct NotificationServiceTests {
    @Test func acN12QualifyingEmailsArePosted() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [makeEmail("a"), makeEmail("b", isSpam: true)], fromBackground: false, activeFolderType: nil)
        #expect(await center.addedEmailIds == ["a"])
        #expect(report.decision(for: "a")?.reason == .passed)
        #expect(report.decision(for: "b")?.reason == .filter(.spam))
        #expect(await service.hasDelivered("a"))
    }

    @Test func vipEmailIsReportedAsVIP() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, settings: settings { $0.addVIPContact("john@example.com") })
        let report = await service.processNewEmails([makeEmail("a")], fromBackground: false, activeFolderType: nil)
        #expect(report.decision(for: "a")?.reason == .vip)
        #expect(report.decision(for: "a")?.kind == .notified)
    }

    @Test func acN10SameEmailIsNotPostedTwice() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        _ = await service.processNewEmails([makeEmail("abc123")], fromBackground: false, activeFolderType: nil)
        let second = await service.processNewEmails([makeEmail("abc123")], fromBackground: false, activeFolderType: nil)
        #expect(await center.addedEmailIds == ["abc123"])
        #expect(second.decision(for: "abc123")?.reason == .duplicate)
    }

    @Test func e11SameEmailFromTwoFoldersInOneBatchNotifiesOnce() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [makeEmail("x", folders: [.inbox]), makeEmail("x", folders: [.inbox, .starred])],
            fromBackground: false, activeFolderType: nil)
        #expect(await center.addedEmailIds == ["x"])
        #expect(report.decisions.map(\.reason) == [.passed, .duplicate])
    }

    @Test func acN10RebuiltDedupSetRecognisesEarlierDeliveries() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, delivered: [DeliveredNotification(emailId: "old", threadId: "T-1")])
        let report = await service.processNewEmails([makeEmail("old")], fromBackground: false, activeFolderType: nil)
        #expect(await center.added.isEmpty)
        #expect(report.decision(for: "old")?.reason == .duplicate)
        await service.rebuildDelivered(from: [])
        _ = await service.processNewEmails([makeEmail("old")], fromBackground: false, activeFolderType: nil)
        #expect(await center.addedEmailIds == ["old"])
    }

    @Test func e13FirstLaunchSuppressesAllButUpdatesTheBadge() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, unread: 500, firstLaunch: true)
        let emails = (0..<500).map { makeEmail("h\($0)", received: noon.addingTimeInterval(-Double($0))) }
        let report = await service.processNewEmails(emails, fromBackground: false, activeFolderType: nil)
        #expect(await center.added.isEmpty)
        #expect(report.decisions.allSatisfy { $0.reason == .firstLaunch })
        #expect(await center.badgeCounts == [500])
        #expect(await service.isFirstLaunch)
    }

    @Test func acN13AfterFirstLaunchRecentEmailsNotify() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, firstLaunch: true)
        await service.markFirstLaunchComplete()
        let emails = (0..<3).map { makeEmail("n\($0)", received: noon.addingTimeInterval(-120)) }
        let report = await service.processNewEmails(emails, fromBackground: false, activeFolderType: nil)
        #expect(report.notifiedIds.count == 3)
        #expect(await center.added.count == 3)
    }

    @Test func e15BackgroundEmailTwoHoursOldIsSuppressed() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [makeEmail("old", received: noon.addingTimeInterval(-7200))], fromBackground: true, activeFolderType: nil)
        #expect(report.decision(for: "old")?.reason == .recency)
        #expect(await center.added.isEmpty)
    }

    @Test func backgroundEmailThirtyMinutesOldNotifies() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [makeEmail("recent", received: noon.addingTimeInterval(-1800))], fromBackground: true,
            activeFolderType: nil)
        #expect(report.decision(for: "recent")?.reason == .passed)
    }

    @Test func e16ForegroundEmailTenMinutesOldIsSuppressed() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [
                makeEmail("ten", received: noon.addingTimeInterval(-600)),
                makeEmail("edge", received: noon.addingTimeInterval(-300)),
            ],
            fromBackground: false, activeFolderType: nil)
        #expect(report.decision(for: "ten")?.reason == .recency)
        #expect(report.decision(for: "edge")?.reason == .passed)
    }

    @Test func e14FifteenQualifyingEmailsGiveTenBannersForTheMostRecent() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, unread: 15)
        let emails = (0..<15).map {
            makeEmail("m\($0)", thread: "T-\($0)", received: noon.addingTimeInterval(-Double($0) * 10))
        }
        let report = await service.processNewEmails(emails.shuffled(), fromBackground: false, activeFolderType: nil)
        #expect(Set(await center.addedEmailIds) == Set((0..<10).map { EmailID(rawValue: "m\($0)") }))
        let capped = report.decisions.filter { $0.reason == .batchLimit }.map(\.emailId)
        #expect(Set(capped) == Set((10..<15).map { EmailID(rawValue: "m\($0)") }))
        #expect(await center.badgeCounts == [15])
        #expect(await !service.hasDelivered("m12"))
    }

    @Test func acN12ActiveFolderSuppressesBannersButNotTheBadge() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, unread: 2)
        let report = await service.processNewEmails(
            [makeEmail("in-a", account: "A", folders: [.inbox]), makeEmail("in-b", account: "B", folders: [.inbox])],
            fromBackground: false, activeFolderType: .inbox)
        #expect(await center.added.isEmpty)
        #expect(report.decisions.allSatisfy { $0.reason == .activeFolder && $0.kind == .badgeOnly })
        #expect(await center.badgeCounts == [2])
    }

    @Test func activeFolderOfAnotherTypeDoesNotSuppress() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails([makeEmail("a")], fromBackground: false, activeFolderType: .sent)
        #expect(report.decision(for: "a")?.reason == .passed)
    }

    @Test func e20NilActiveFolderNeverSuppresses() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [makeEmail("b", account: "B"), makeEmail("c", account: "C")], fromBackground: false, activeFolderType: nil)
        #expect(report.notifiedIds == ["b", "c"])
    }

    @Test func acN09BadgeCountsInboxUnreadOnly() async throws {
        let center = RecordingNotificationCenter()
        let inbox = (0..<50).map { makeEmail("i\($0)", folders: [.inbox]) }
        let elsewhere = (0..<20).map { makeEmail("o\($0)", folders: $0 % 2 == 0 ? [.archive] : [.spam]) }
        let read = (0..<5).map { makeEmail("r\($0)", isRead: true) }
        let service = NotificationService(
            center: center, settings: { NotificationSettings() },
            mailbox: Mailbox(emails: inbox + elsewhere + read), now: { noon })
        #expect(try await service.updateBadgeCount() == .updated(50))
        #expect(await center.badgeCounts == [50])
    }

    @Test func acN09AllReadGivesZero() async throws {
        let center = RecordingNotificationCenter()
        let service = NotificationService(
            center: center, settings: { NotificationSettings() },
            mailbox: Mailbox(emails: [makeEmail("a", isRead: true)]), now: { noon })
        try await service.updateBadgeCount()
        #expect(await center.badgeCounts == [0])
    }

    @Test func badgeIsSentOnlyWhenItChanged() async throws {
        let center = RecordingNotificationCenter()
        let mailbox = SettableMailbox(count: 5)
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: mailbox, badgeCount: 5, now: { noon })
        #expect(try await service.updateBadgeCount() == .unchanged(5))
        await mailbox.set(4)
        #expect(try await service.updateBadgeCount() == .updated(4))
        #expect(try await service.updateBadgeCount() == .unchanged(4))
        #expect(await center.badgeCounts == [4])
        #expect(await service.badgeCount == 4)
    }

    @Test func aBadgeHeraldRefusedIsSentAgainNextTime() async throws {
        let center = RecordingNotificationCenter()
        await center.failBadges(with: .unreachable(reason: "connection refused"))
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: SettableMailbox(count: 2), now: { noon })
        await #expect(throws: HeraldError.unreachable(reason: "connection refused")) {
            try await service.updateBadgeCount()
        }
        #expect(await service.badgeCount == nil)
        await center.failBadges(with: nil)
        #expect(try await service.updateBadgeCount() == .updated(2))
        #expect(await center.badgeCounts == [2])
    }

    @Test func acN11RemoveByEmailIds() async throws {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        try await service.removeNotifications(forEmailIds: ["a", "b"])
        #expect(await center.removedIdentifiers == ["email-a", "email-b"])
    }

    @Test func acN11RemoveByThreadTargetsOnlyThatThread() async throws {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        _ = await service.processNewEmails(
            [makeEmail("a", thread: "T-1"), makeEmail("b", thread: "T-2"), makeEmail("c", thread: "T-1")],
            fromBackground: false, activeFolderType: nil)
        try await service.removeNotifications(forThreadId: "T-1")
        #expect(Set(await center.removedIdentifiers) == ["email-a", "email-c"])
    }

    @Test func removingAThreadWithoutBannersSendsNothing() async throws {
        let center = RecordingNotificationCenter()
        let service = await makeService(center)
        try await service.removeNotifications(forThreadId: "T-none")
        #expect(await center.removed.isEmpty)
    }

    @Test func failedDeliveryIsNotMarkedDelivered() async {
        let center = RecordingNotificationCenter()
        await center.failAdds(for: ["a"])
        let service = await makeService(center)
        let report = await service.processNewEmails(
            [makeEmail("a"), makeEmail("b")], fromBackground: false, activeFolderType: nil)
        #expect(report.decision(for: "a")?.kind == .failed)
        #expect(report.decision(for: "a")?.reason == .deliveryFailed(.timeout(after: .seconds(1))))
        #expect(await !service.hasDelivered("a"))
        #expect(await service.hasDelivered("b"))
        await center.failAdds(for: [])
        let retry = await service.processNewEmails([makeEmail("a")], fromBackground: false, activeFolderType: nil)
        #expect(retry.decision(for: "a")?.reason == .passed)
    }

    @Test func acN26ServiceDedupSetIsBoundedFIFO() async {
        let center = RecordingNotificationCenter()
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: FixedMailbox(count: 0),
            configuration: NotificationServiceConfiguration(dedupCapacity: 3), now: { noon })
        await service.markFirstLaunchComplete()
        for id in ["a", "b", "c", "d"] {
            _ = await service.processNewEmails([makeEmail(id)], fromBackground: false, activeFolderType: nil)
        }
        #expect(await service.deliveredNotifications.map(\.emailId) == ["b", "c", "d"])
        #expect(await !service.hasDelivered("a"))
    }

    @Test func concurrentBatchesPostTheSameEmailOnce() async {
        let center = RecordingNotificationCenter()
        await center.delayAdds(by: .milliseconds(50))
        let service = await makeService(center)
        async let first = service.processNewEmails([makeEmail("race")], fromBackground: false, activeFolderType: nil)
        async let second = service.processNewEmails([makeEmail("race")], fromBackground: false, activeFolderType: nil)
        let reasons = await [first, second].compactMap { $0.decision(for: "race")?.reason }
        #expect(await center.addedEmailIds == ["race"])
        #expect(reasons.sorted { $0.name < $1.name } == [.duplicate, .passed])
    }
}
