import MailNotifier
import Testing

@Suite("SpamNotificationFilter (NOTIF-12, AC-N-06)")
struct SpamNotificationFilterTests {
    let filter = SpamNotificationFilter()

    @Test func acN06SpamIsSuppressed() {
        #expect(!filter.shouldNotify(for: makeEmail(isSpam: true), in: context()))
    }

    @Test func acN06NonSpamPasses() {
        #expect(filter.shouldNotify(for: makeEmail(isSpam: false), in: context()))
    }
}
