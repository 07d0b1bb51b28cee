import Foundation
import MailNotifier
import Testing

@Suite("MailboxFile")
struct MailboxFileTests {
    func write(_ mailbox: Mailbox, to url: URL) throws {
        try JSONEncoder().encode(mailbox).write(to: url)
    }

    @Test func aMissingFileIsAnErrorNamingThePath() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("absent.json")
        #expect(throws: MailboxError.missing(path: url.path)) { try MailboxFile(fileURL: url) }
    }

    @Test func anInvalidFileIsAnErrorNamingThePathAndTheField() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("mailbox.json")
        try Data(#"{"emails": [{"id": "a"}]}"#.utf8).write(to: url)
        do {
            _ = try MailboxFile(fileURL: url)
            Issue.record("expected an error")
        } catch {
            guard case .unreadable(let path, let reason) = error else {
                Issue.record("expected unreadable, got \(error)")
                return
            }
            #expect(path == url.path)
            #expect(reason.contains("dateReceived"))
        }
    }

    @Test func actionsAreOnDiskWhenTheyReturn() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("mailbox.json")
        try write(Mailbox(emails: [makeEmail("a", thread: "T-1")]), to: url)
        let file = try MailboxFile(fileURL: url)
        try await file.archiveThread(id: "T-1")
        #expect(try await MailboxFile(fileURL: url).mailbox.email(id: "a")?.folderTypes == [.archive])
        #expect(await file.inboxUnreadCount() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["mailbox.json"])
    }

    @Test func aFailedActionLeavesFileAndMemoryAsTheyWere() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("mailbox.json")
        try write(Mailbox(emails: [makeEmail("a", thread: "T-1")]), to: url)
        let before = try Data(contentsOf: url)
        let file = try MailboxFile(fileURL: url)
        await #expect(throws: MailboxError.threadNotFound("T-2")) { try await file.deleteThread(id: "T-2") }
        #expect(try Data(contentsOf: url) == before)
        #expect(await file.mailbox.email(id: "a")?.folderTypes == [.inbox])
    }

    @Test func anUnwritableFileFailsTheActionAndKeepsMemoryUnchanged() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("mailbox.json")
        try write(Mailbox(emails: [makeEmail("a", thread: "T-1")]), to: url)
        let file = try MailboxFile(fileURL: url)
        try FileManager.default.removeItem(at: directory.url)
        await #expect(throws: MailboxError.self) {
            try await file.markAllRead(in: MailThread(id: "T-1", accountId: "acct-1", subject: ""))
        }
        #expect(await file.mailbox.email(id: "a")?.isRead == false)
    }
}
