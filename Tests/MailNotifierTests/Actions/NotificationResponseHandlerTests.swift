import MailNotifier
import Testing

@Suite("NotificationResponseHandler (NOTIF-06, AC-N-16…AC-N-20)")
struct NotificationResponseHandlerTests {
    let original = makeEmail(
        "E-789", thread: "T-456", account: "acct-1", from: "sender@example.com", subject: "Lunch on Friday",
        messageId: "<m2@example.com>", references: "<m1@example.com>")

    struct Fixture {
        let center: RecordingNotificationCenter
        let store: FakeMailStore
        let coordinator: NotificationSyncCoordinator
        let handler: NotificationResponseHandler
    }

    func fixture() async -> Fixture {
        let center = RecordingNotificationCenter()
        let store = FakeMailStore()
        await store.store(original)
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: store, now: { noon })
        await service.markFirstLaunchComplete()
        _ = await service.processNewEmails([original], fromBackground: false, activeFolderType: nil)
        let coordinator = NotificationSyncCoordinator(service: service)
        let handler = NotificationResponseHandler(
            repository: store, markRead: store, threadActions: store, compose: store, service: service,
            coordinator: coordinator)
        return Fixture(center: center, store: store, coordinator: coordinator, handler: handler)
    }

    func response(_ action: NotificationAction, reply: String? = nil) -> NotificationResponse {
        NotificationResponse(
            action: action, userInfo: NotificationContentBuilder.build(from: original).userInfo.dictionary,
            replyText: reply)
    }

    /// The banner went away and the badge dropped after the action handled the thread's one unread email.
    func expectCleanedUp(_ fixture: Fixture) async {
        #expect(await fixture.center.removedIdentifiers == ["email-E-789"])
        #expect(await fixture.center.badgeCounts == [1, 0])
    }

    @Test func acN16MarkReadMarksTheThreadObject() async throws {
        let fixture = await fixture()
        try await fixture.handler.handle(response(.markRead))
        #expect(await fixture.store.calls == [.markAllRead("T-456")])
        await expectCleanedUp(fixture)
    }

    @Test func acN17ArchiveArchivesTheThread() async throws {
        let fixture = await fixture()
        try await fixture.handler.handle(response(.archive))
        #expect(await fixture.store.calls == [.archive("T-456")])
        await expectCleanedUp(fixture)
    }

    @Test func acN18DeleteDeletesTheThread() async throws {
        let fixture = await fixture()
        try await fixture.handler.handle(response(.delete))
        #expect(await fixture.store.calls == [.delete("T-456")])
        await expectCleanedUp(fixture)
    }

    @Test func acN19ReplySavesQueuesAndSendsTheDraft() async throws {
        let fixture = await fixture()
        try await fixture.handler.handle(response(.reply, reply: "Thanks, I'll be there!"))
        let expected = Draft(
            accountId: "acct-1", threadId: "T-456", toAddresses: ["sender@example.com"], ccAddresses: [],
            bccAddresses: [], subject: "Re: Lunch on Friday", bodyPlain: "Thanks, I'll be there!",
            inReplyTo: "<m2@example.com>", references: "<m1@example.com> <m2@example.com>", attachments: [])
        #expect(await fixture.store.calls == [.saveDraft(expected), .queue("draft-1"), .send("draft-1")])
        #expect(await fixture.center.removedIdentifiers == ["email-E-789"])
        // A reply leaves the email unread, so the badge the devices show is still right and is not resent.
        #expect(await fixture.center.badgeCounts == [1])
    }

    @Test func e17ReplyDoesNotDoubleThePrefix() {
        let already = makeEmail(subject: "Re: Budget", messageId: "<x@y>")
        #expect(Draft.reply(to: already, text: "ok").subject == "Re: Budget")
        #expect(Draft.reply(to: already, text: "ok").references == "<x@y>")
        #expect(Draft.reply(to: makeEmail(subject: "Budget"), text: "ok").subject == "Re: Budget")
    }

    @Test func acN20TapSetsPendingNavigationOnly() async throws {
        let fixture = await fixture()
        try await fixture.handler.handle(response(.open))
        #expect(await fixture.coordinator.pendingThreadNavigation == "T-456")
        #expect(await fixture.store.calls.isEmpty)
        #expect(await fixture.center.removed.isEmpty)
    }

    @Test func e24ForegroundBannerForTheViewedThreadOnlyUpdatesTheBadge() {
        let userInfo = NotificationContentBuilder.build(from: original).userInfo.dictionary
        #expect(PresentationOptions.forForeground(userInfo, viewingThread: "T-456") == .badge)
        #expect(PresentationOptions.forForeground(userInfo, viewingThread: "T-other") == [.banner, .badge, .sound])
        #expect(PresentationOptions.forForeground(userInfo, viewingThread: nil) == [.banner, .badge, .sound])
    }

    @Test func e18DeletingAnAlreadyDeletedThreadFailsGracefully() async throws {
        let fixture = await fixture()
        try await fixture.handler.handle(response(.delete))
        await #expect(throws: NotificationActionError.self) {
            try await fixture.handler.handle(response(.delete))
        }
        #expect(await fixture.center.removed.count == 2)
        #expect(await fixture.center.badgeCounts == [1, 0])
    }

    @Test func replyWithoutTextIsRejected() async {
        let fixture = await fixture()
        await #expect(throws: NotificationActionError.missingReplyText) {
            try await fixture.handler.handle(response(.reply, reply: ""))
        }
        #expect(await fixture.store.calls.isEmpty)
    }

    @Test func responseWithoutThreadIdIsRejected() async {
        let fixture = await fixture()
        await #expect(throws: NotificationActionError.missingUserInfo(key: "threadId")) {
            try await fixture.handler.handle(NotificationResponse(action: .archive, userInfo: [:]))
        }
    }

    @Test func actionIdentifiersMatchTheCategory() {
        #expect(NotificationAction.markRead.rawValue == "MARK_READ_ACTION")
        #expect(NotificationAction.archive.rawValue == "ARCHIVE_ACTION")
        #expect(NotificationAction.delete.rawValue == "DELETE_ACTION")
        #expect(NotificationAction.reply.rawValue == "REPLY_ACTION")
    }
}
