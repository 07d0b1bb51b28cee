import MailNotifier
import Testing

@Suite("AccountNotificationFilter (NOTIF-08, AC-N-06)")
struct AccountNotificationFilterTests {
    let filter = AccountNotificationFilter()

    @Test func acN06EnabledAccountPasses() {
        let value = settings { $0.accountNotifications["acct-1"] = true }
        #expect(filter.shouldNotify(for: makeEmail(account: "acct-1"), in: context(value)))
    }

    @Test func acN06DisabledAccountIsSuppressed() {
        let value = settings { $0.accountNotifications["acct-1"] = false }
        #expect(!filter.shouldNotify(for: makeEmail(account: "acct-1"), in: context(value)))
    }

    @Test func acN06UnknownAccountDefaultsToOn() {
        let value = settings { $0.accountNotifications["other"] = false }
        #expect(filter.shouldNotify(for: makeEmail(account: "acct-1"), in: context(value)))
    }
}
