import Foundation
import MailNotifier
import Testing

@Suite("Mailbox (NOTIF-06 actions, NOTIF-16 badge)")
struct MailboxTests {
    let mailbox = Mailbox(emails: [
        makeEmail("a1", thread: "T-a", received: at(9, 0)),
        makeEmail("a2", thread: "T-a", subject: "Re: Meeting Tomorrow", folders: [.inbox, .starred]),
        makeEmail("a3", thread: "T-a", folders: [.sent]),
        makeEmail("b1", thread: "T-b", isRead: true),
        makeEmail("c1", thread: "T-c", folders: [.archive]),
    ])

    @Test func acN09BadgeCountsUnreadInboxEmailsOnceEach() {
        var withAnother = mailbox
        withAnother.add(missing: [makeEmail("d1", thread: "T-d")])
        #expect(mailbox.unreadInboxCount == 2)
        #expect(withAnother.unreadInboxCount == 3)
        #expect(Mailbox(emails: [makeEmail("x"), makeEmail("x", folders: [.inbox, .starred])]).unreadInboxCount == 1)
    }

    @Test func threadIsNamedAfterItsOldestEmail() {
        #expect(mailbox.thread(id: "T-a") == MailThread(id: "T-a", accountId: "acct-1", subject: "Meeting Tomorrow"))
        #expect(mailbox.thread(id: "T-none") == nil)
        #expect(mailbox.threadIds == ["T-a", "T-b", "T-c"])
    }

    @Test func addingABatchKeepsTheStoredCopyOfAKnownEmail() {
        var copy = mailbox
        #expect(copy.add(missing: [makeEmail("b1", thread: "T-b", isRead: false), makeEmail("new")]) == 1)
        #expect(copy.email(id: "b1")?.isRead == true)
        #expect(copy.email(id: "new") != nil)
    }

    @Test func acN16MarkReadReadsEveryEmailOfTheThreadOnly() throws {
        var copy = mailbox
        try copy.markAllRead(inThread: "T-a")
        #expect(copy.emails.filter { $0.threadId == "T-a" }.allSatisfy { $0.isRead })
        #expect(copy.unreadInboxCount == 0)
        #expect(copy.email(id: "c1")?.isRead == false)
    }

    @Test func acN17ArchiveTakesTheThreadOutOfTheInboxKeepingOtherFolders() throws {
        var copy = mailbox
        try copy.archiveThread("T-a")
        #expect(copy.email(id: "a1")?.folderTypes == [.archive])
        #expect(copy.email(id: "a2")?.folderTypes == [.archive, .starred])
        #expect(copy.email(id: "a3")?.folderTypes == [.sent])
        #expect(copy.unreadInboxCount == 0)
    }

    @Test func acN18DeleteMovesTheWholeThreadToTheTrash() throws {
        var copy = mailbox
        try copy.deleteThread("T-a")
        #expect(copy.emails.filter { $0.threadId == "T-a" }.allSatisfy { $0.folderTypes == [.trash] })
        #expect(copy.threadIds.contains("T-a"), "a deleted thread still exists, in the trash")
    }

    @Test func e18ActionsOnAThreadThatIsGoneFailAndChangeNothing() {
        var copy = mailbox
        #expect(throws: MailboxError.threadNotFound("T-none")) { try copy.deleteThread("T-none") }
        #expect(throws: MailboxError.threadNotFound("T-none")) { try copy.archiveThread("T-none") }
        #expect(throws: MailboxError.threadNotFound("T-none")) { try copy.markAllRead(inThread: "T-none") }
        #expect(copy == mailbox)
    }

    @Test func acN19AReplyGoesFromDraftToQueuedToSendNow() throws {
        var copy = mailbox
        let draft = Draft.reply(to: makeEmail("a2", thread: "T-a", messageId: "<m2@example.com>"), text: "Yes")
        let id = try copy.saveDraft(draft)
        let saved = try #require(copy.outbox.first)
        #expect(saved.id == id)
        #expect(saved.id == EmailID.stable(accountId: "acct-1", messageId: saved.messageId))
        #expect(saved.state == .draft)
        #expect(saved.draft == draft)
        #expect(throws: MailboxError.messageNotReady(id, state: .draft, expected: .queued)) { try copy.sendNow(id) }
        try copy.queueForSending(id)
        try copy.sendNow(id)
        #expect(copy.outbox.map(\.state) == [.sendNow])
        #expect(throws: MailboxError.messageNotFound("nope")) { try copy.queueForSending("nope") }
    }

    @Test func theReplyToAnInteractionIsFiledOnce() throws {
        var copy = mailbox
        let original = makeEmail("a2", thread: "T-a", messageId: "<m2@example.com>")
        let first = copy.saveDraft(Draft.reply(to: original, text: "Yes"), answering: "i-1")
        let again = copy.saveDraft(Draft.reply(to: original, text: "Yes, again"), answering: "i-1")
        #expect(again == first)
        #expect(copy.outbox.map(\.interactionId) == ["i-1"])
        #expect(copy.outbox.first?.draft.bodyPlain == "Yes")
        let other = copy.saveDraft(Draft.reply(to: original, text: "Yes"), answering: "i-2")
        #expect(other != first)
        #expect(copy.outbox.map(\.interactionId) == ["i-1", "i-2"])
        #expect(copy.outgoingMessage(id: other)?.state == .draft)
    }

    @Test func jsonFormHasEmailsAndAnOptionalOutbox() throws {
        let decoded = try JSONDecoder().decode(Mailbox.self, from: Data(#"{"emails": []}"#.utf8))
        #expect(decoded == Mailbox())
        let roundTripped = try JSONDecoder().decode(Mailbox.self, from: JSONEncoder().encode(mailbox))
        #expect(roundTripped == mailbox)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Mailbox.self, from: Data("[]".utf8)) }
    }
}
