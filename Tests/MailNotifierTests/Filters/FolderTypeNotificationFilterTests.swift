import MailNotifier
import Testing

@Suite("FolderTypeNotificationFilter (NOTIF-13, AC-N-06)")
struct FolderTypeNotificationFilterTests {
    let filter = FolderTypeNotificationFilter()

    @Test func acN06InboxPasses() {
        #expect(filter.shouldNotify(for: makeEmail(folders: [.inbox]), in: context()))
    }

    @Test func acN06SentOnlyIsSuppressed() {
        #expect(!filter.shouldNotify(for: makeEmail(folders: [.sent]), in: context()))
    }

    @Test func e05DraftsOnlyIsSuppressed() {
        #expect(!filter.shouldNotify(for: makeEmail(folders: [.drafts]), in: context()))
    }

    @Test func e06InboxAndStarredPasses() {
        #expect(filter.shouldNotify(for: makeEmail(folders: [.inbox, .starred]), in: context()))
    }

    @Test(arguments: [FolderType.trash, .spam, .archive, .custom, "Work"])
    func acN06NonInboxFoldersAreSuppressed(folder: FolderType) {
        #expect(!filter.shouldNotify(for: makeEmail(folders: [folder]), in: context()))
    }

    @Test func folderTypesCompareCaseInsensitively() {
        #expect(filter.shouldNotify(for: makeEmail(folders: ["INBOX"]), in: context()))
    }

    @Test func noFolderIsSuppressed() {
        #expect(!filter.shouldNotify(for: makeEmail(folders: []), in: context()))
    }
}
