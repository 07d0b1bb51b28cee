/// The one entry point sync code and mail actions call (NOTIF-18): it forwards new emails to the
/// service, withdraws banners when a thread is read or removed, and holds the thread a tapped banner
/// asked to open until the UI takes it.
public actor NotificationSyncCoordinator {
    private let service: NotificationService

    /// The thread a tapped notification asked to show; set before any UI exists on a cold start.
    public private(set) var pendingThreadNavigation: ThreadID?

    public init(service: NotificationService) {
        self.service = service
    }

    @discardableResult
    public func didSyncNewEmails(
        _ emails: [Email], fromBackground: Bool, activeFolderType: FolderType?
    ) async -> ProcessingReport {
        await service.processNewEmails(emails, fromBackground: fromBackground, activeFolderType: activeFolderType)
    }

    /// The user read the thread in the app: its banners go, and the badge drops.
    public func didMarkThreadRead(_ thread: ThreadID) async throws(HeraldError) {
        try await withdraw(thread)
    }

    /// The user archived or deleted the thread in the app: its banners go, and the badge drops.
    public func didRemoveThread(_ thread: ThreadID) async throws(HeraldError) {
        try await withdraw(thread)
    }

    public func markFirstLaunchComplete() async {
        await service.markFirstLaunchComplete()
    }

    public func requestNavigation(to thread: ThreadID) {
        pendingThreadNavigation = thread
    }

    /// Hands the pending thread to the UI once and clears it, so it navigates exactly once.
    public func takePendingThreadNavigation() -> ThreadID? {
        defer { pendingThreadNavigation = nil }
        return pendingThreadNavigation
    }

    private func withdraw(_ thread: ThreadID) async throws(HeraldError) {
        try await service.removeNotifications(forThreadId: thread)
        try await service.updateBadgeCount()
    }
}
