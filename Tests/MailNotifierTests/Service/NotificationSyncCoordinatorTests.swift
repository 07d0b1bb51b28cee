import MailNotifier
import Testing

@Suite("NotificationSyncCoordinator (NOTIF-18, AC-N-11, AC-N-12)")
struct NotificationSyncCoordinatorTests {
    @Test func acN12DidSyncNewEmailsRunsTheService() async {
        let center = RecordingNotificationCenter()
        let coordinator = NotificationSyncCoordinator(service: await makeService(center, unread: 2))
        let report = await coordinator.didSyncNewEmails(
            [makeEmail("a"), makeEmail("b", folders: [.sent])], fromBackground: false, activeFolderType: nil)
        #expect(report.notifiedIds == ["a"])
        #expect(await center.badgeCounts == [2])
    }

    /// A coordinator past first launch whose mailbox starts with `unread` unread emails.
    func makeCoordinator(_ center: RecordingNotificationCenter, unread: Int) async -> (
        NotificationSyncCoordinator, SettableMailbox
    ) {
        let mailbox = SettableMailbox(count: unread)
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: mailbox, now: { noon })
        await service.markFirstLaunchComplete()
        return (NotificationSyncCoordinator(service: service), mailbox)
    }

    @Test func acN11DidMarkThreadReadRemovesBannersAndUpdatesBadge() async throws {
        let center = RecordingNotificationCenter()
        let (coordinator, mailbox) = await makeCoordinator(center, unread: 4)
        await coordinator.didSyncNewEmails(
            [makeEmail("a", thread: "T-1")], fromBackground: false, activeFolderType: nil)
        await mailbox.set(3)
        try await coordinator.didMarkThreadRead("T-1")
        #expect(await center.removedIdentifiers == ["email-a"])
        #expect(await center.badgeCounts == [4, 3])
    }

    @Test func acN11DidRemoveThreadRemovesBannersAndUpdatesBadge() async throws {
        let center = RecordingNotificationCenter()
        let (coordinator, mailbox) = await makeCoordinator(center, unread: 2)
        await coordinator.didSyncNewEmails(
            [makeEmail("a", thread: "T-1"), makeEmail("b", thread: "T-2")], fromBackground: false, activeFolderType: nil
        )
        await mailbox.set(1)
        try await coordinator.didRemoveThread("T-2")
        #expect(await center.removedIdentifiers == ["email-b"])
        #expect(await center.badgeCounts == [2, 1])
    }

    @Test func e25MarkFirstLaunchCompleteLetsLaterBackgroundSyncsNotify() async {
        let center = RecordingNotificationCenter()
        let service = await makeService(center, firstLaunch: true)
        let coordinator = NotificationSyncCoordinator(service: service)
        let first = await coordinator.didSyncNewEmails([makeEmail("a")], fromBackground: true, activeFolderType: nil)
        #expect(first.decision(for: "a")?.reason == .firstLaunch)
        await coordinator.markFirstLaunchComplete()
        #expect(await !service.isFirstLaunch)
        let second = await coordinator.didSyncNewEmails([makeEmail("b")], fromBackground: true, activeFolderType: nil)
        #expect(second.notifiedIds == ["b"])
    }

    @Test func e12PendingThreadNavigationIsHandedOutOnce() async {
        let coordinator = NotificationSyncCoordinator(service: await makeService(RecordingNotificationCenter()))
        #expect(await coordinator.pendingThreadNavigation == nil)
        // Cold start: the tap is recorded before any screen asks for it.
        await coordinator.requestNavigation(to: "T-456")
        #expect(await coordinator.pendingThreadNavigation == "T-456")
        #expect(await coordinator.takePendingThreadNavigation() == "T-456")
        #expect(await coordinator.pendingThreadNavigation == nil)
        #expect(await coordinator.takePendingThreadNavigation() == nil)
    }
}
