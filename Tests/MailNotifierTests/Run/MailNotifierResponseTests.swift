import Foundation
import MailNotifier
import Testing

@Suite("mail-notifier respond (MailNotifierResponse, NOTIF-06)")
struct MailNotifierResponseTests {
    static let emailId = EmailID.stable(accountId: "acct-1", messageId: "<m2@example.com>")

    /// A mailbox with the answered email, an earlier banner of the same thread, and an unrelated unread
    /// email; the state remembers both banners and a badge of 3.
    final class Fixture {
        let directory: TemporaryDirectory
        let mailbox: MailboxFile
        let state = DeliveryState(
            delivered: [
                DeliveredNotification(emailId: "earlier", threadId: "T-lunch"),
                DeliveredNotification(emailId: MailNotifierResponseTests.emailId, threadId: "T-lunch"),
            ],
            badgeCount: 3)
        let center = RecordingNotificationCenter()

        init() throws {
            directory = try TemporaryDirectory()
            let emails = [
                makeEmail("earlier", thread: "T-lunch", subject: "Lunch", received: at(11, 0)),
                makeEmail(
                    MailNotifierResponseTests.emailId.rawValue, thread: "T-lunch", from: "sender@example.com",
                    subject: "Re: Lunch", messageId: "<m2@example.com>", references: "<m1@example.com>"),
                makeEmail("other", thread: "T-other"),
            ]
            try JSONEncoder().encode(Mailbox(emails: emails)).write(to: directory.file("mailbox.json"))
            mailbox = try MailboxFile(fileURL: directory.file("mailbox.json"))
        }

        func respond(
            _ action: NotificationAction, text: String? = nil, answering interaction: InteractionID? = nil,
            to id: EmailID = MailNotifierResponseTests.emailId
        ) async
            -> MailNotifierResponse.Result
        {
            await MailNotifierResponse.respond(
                to: id, with: action, replyText: text, answering: interaction, mailbox: mailbox, state: state,
                center: center)
        }

        /// The mailbox as the next process would read it.
        func reread() throws -> Mailbox {
            try JSONDecoder().decode(Mailbox.self, from: Data(contentsOf: directory.file("mailbox.json")))
        }
    }

    @Test func markReadIsWrittenTheThreadsBannersWithdrawnAndTheBadgeDrops() async throws {
        let fixture = try Fixture()
        let result = await fixture.respond(.markRead)
        #expect(result.failure == nil)
        let stored = try fixture.reread()
        #expect(stored.emails.filter { $0.threadId == "T-lunch" }.allSatisfy { $0.isRead })
        #expect(await fixture.center.removedIdentifiers == ["email-earlier", "email-\(Self.emailId)"])
        #expect(await fixture.center.badgeCounts == [1])
        #expect(result.state == DeliveryState(delivered: fixture.state.delivered, badgeCount: 1))
    }

    @Test(arguments: [NotificationAction.archive, .delete])
    func archiveAndDeleteEmptyTheThreadsInboxAndWithdrawItsBanners(action: NotificationAction) async throws {
        let fixture = try Fixture()
        let result = await fixture.respond(action)
        #expect(result.failure == nil)
        let thread = try fixture.reread().emails.filter { $0.threadId == "T-lunch" }
        #expect(thread.allSatisfy { !$0.isInInbox })
        #expect(thread.allSatisfy { $0.folderTypes.contains(action == .archive ? .archive : .trash) })
        #expect(await fixture.center.removed.count == 1)
        #expect(await fixture.center.badgeCounts == [1])
    }

    @Test func replyIsFiledForSendingAndTheUnchangedBadgeIsNotResent() async throws {
        let fixture = try Fixture()
        let result = await fixture.respond(.reply, text: "See you there")
        #expect(result.failure == nil)
        let message = try #require(try fixture.reread().outbox.first)
        #expect(message.state == .sendNow)
        #expect(message.draft.toAddresses == ["sender@example.com"])
        #expect(message.draft.subject == "Re: Lunch")
        #expect(message.draft.inReplyTo == "<m2@example.com>")
        #expect(message.draft.bodyPlain == "See you there")
        #expect(await fixture.center.removed.count == 1)
        #expect(await fixture.center.badgeCounts.isEmpty)
        #expect(result.state.badgeCount == 3)
    }

    @Test func theInteractionCursorIsKept() async throws {
        let fixture = try Fixture()
        var state = fixture.state
        state.interactionCursor = "c-9"
        state.appliedInteractionIds = ["i-8"]
        let result = await MailNotifierResponse.respond(
            to: Self.emailId, with: .markRead, replyText: nil, mailbox: fixture.mailbox, state: state,
            center: fixture.center)
        #expect(result.failure == nil)
        var expected = state
        expected.badgeCount = 1
        #expect(result.state == expected)
    }

    @Test func aReplyToAnInteractionIsFiledOnceHoweverOftenItIsAnswered() async throws {
        let fixture = try Fixture()
        for _ in 0..<2 {
            let result = await fixture.respond(.reply, text: "See you there", answering: "i-1")
            #expect(result.failure == nil)
        }
        let outbox = try fixture.reread().outbox
        #expect(outbox.map(\.interactionId) == ["i-1"])
        #expect(outbox.first?.state == .sendNow)
        #expect(outbox.first?.draft.bodyPlain == "See you there")
    }

    /// A run that stopped after saving the draft: answering the interaction again sends that draft.
    @Test func aReplyToAnInteractionLeftAsADraftIsFinished() async throws {
        let fixture = try Fixture()
        let original = try #require(await fixture.mailbox.mailbox.email(id: Self.emailId))
        try await fixture.mailbox.update { (mailbox: inout Mailbox) in
            mailbox.saveDraft(Draft.reply(to: original, text: "See you there"), answering: "i-1")
        }
        let result = await fixture.respond(.reply, text: "See you there", answering: "i-1")
        #expect(result.failure == nil)
        let outbox = try fixture.reread().outbox
        #expect(outbox.map(\.interactionId) == ["i-1"])
        #expect(outbox.first?.state == .sendNow)
    }

    @Test func anEmailNeitherInTheMailboxNorBannedDoesNothing() async throws {
        let fixture = try Fixture()
        let result = await fixture.respond(.delete, to: "unknown")
        #expect(result.failure == .emailNotFound("unknown"))
        #expect(result.state == fixture.state)
        #expect(await fixture.center.removed.isEmpty)
        #expect(await fixture.center.badgeCounts.isEmpty)
    }

    @Test func e18AnEmailGoneFromTheMailboxStillHasItsBannerWithdrawn() async throws {
        let fixture = try Fixture()
        var state = fixture.state
        state.delivered.append(DeliveredNotification(emailId: "vanished", threadId: "T-vanished"))
        let result = await MailNotifierResponse.respond(
            to: "vanished", with: .delete, replyText: nil, mailbox: fixture.mailbox, state: state,
            center: fixture.center)
        guard case .actionFailed(.delete, let reason)? = result.failure else {
            Issue.record("expected the delete to fail, got \(String(describing: result.failure))")
            return
        }
        #expect(reason.contains("T-vanished"))
        #expect(await fixture.center.removedIdentifiers == ["email-vanished"])
    }
}
