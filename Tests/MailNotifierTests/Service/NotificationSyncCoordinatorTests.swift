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

    @Test func acN11DidMarkThreadReadRemovesBannersAndUpdatesBadge() async throws {
        let center = RecordingNotificationCenter()
        let coordinator = NotificationSyncCoordinator(service: await makeService(center, unread: 4))
        await coordinator.didSyncNewEmails(
            [makeEmail("a", thread: "T-1")], fromBackground: false, activeFolderType: nil)
        try await coordinator.didMarkThreadRead("T-1")
        #expect(await center.removedIdentifiers == ["email-a"])
        #expect(await center.badgeCounts == [4, 4])
    }

    @Test func acN11DidRemoveThreadRemovesBannersAndUpdatesBadge() async throws {
        let center = RecordingNotificationCenter()
        let coordinator = NotificationSyncCoordinator(service: await makeService(center, unread: 1))
        await coordinator.didSyncNewEmails(
            [makeEmail("a", thread: "T-1"), makeEmail("b", thread: "T-2")], fromBackground: false, activeFolderType: nil
        )
        try await coordinator.didRemoveThread("T-2")
        #expect(await center.removedIdentifiers == ["email-b"])
        #expect(await center.badgeCounts.count == 2)
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
