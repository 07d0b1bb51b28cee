import Foundation
import MailNotifier

/// A fixed instant, 2026-02-19 12:00:00 UTC, so no test depends on the wall clock.
let noon = Date(timeIntervalSince1970: 1_771_502_400)

func utc() -> TimeZone { TimeZone(identifier: "UTC")! }

/// An instant at `hour:minute` UTC on the fixture day.
func at(_ hour: Int, _ minute: Int) -> Date {
    noon.addingTimeInterval(TimeInterval((hour - 12) * 3600 + minute * 60))
}

func makeEmail(
    _ id: String = "e1",
    thread: String = "T-1",
    account: String = "acct-1",
    from: String = "john@example.com",
    name: String? = "John Doe",
    subject: String = "Meeting Tomorrow",
    snippet: String? = "Hi team, let's discuss the Q1 budget review next week...",
    received: Date = noon.addingTimeInterval(-60),
    isRead: Bool = false,
    isSpam: Bool = false,
    category: AICategory? = nil,
    folders: Set<FolderType> = [.inbox],
    messageId: String? = nil,
    references: String? = nil
) -> Email {
    Email(
        id: EmailID(rawValue: id), threadId: ThreadID(rawValue: thread), accountId: AccountID(rawValue: account),
        fromAddress: from, fromName: name, subject: subject, snippet: snippet, dateReceived: received,
        isRead: isRead, isSpam: isSpam, aiCategory: category, folderTypes: folders, messageId: messageId,
        references: references)
}

/// A filter context on a machine set to UTC, unless another zone is given.
func context(
    _ settings: NotificationSettings = NotificationSettings(), now: Date = noon, machineTimeZone: TimeZone = utc()
) -> FilterContext {
    FilterContext(settings: settings, now: now, machineTimeZone: machineTimeZone)
}

func settings(_ change: (inout NotificationSettings) throws -> Void) rethrows -> NotificationSettings {
    var value = NotificationSettings()
    try change(&value)
    return value
}

/// A scratch directory removed when the test ends.
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "mail-notifier-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL {
        url.appending(path: name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
