import MailNotifier
import Testing

@Suite("CategoryNotificationFilter (NOTIF-09, AC-N-07)")
struct CategoryNotificationFilterTests {
    let filter = CategoryNotificationFilter()
    let promotionsOff = settings { $0.setNotificationCategory(.promotions, enabled: false) }

    @Test func acN07EnabledCategoryPasses() {
        #expect(filter.shouldNotify(for: makeEmail(category: .social), in: context(promotionsOff)))
    }

    @Test func acN07DisabledCategoryIsSuppressed() {
        #expect(!filter.shouldNotify(for: makeEmail(category: .promotions), in: context(promotionsOff)))
    }

    @Test func e07NilCategoryPasses() {
        #expect(filter.shouldNotify(for: makeEmail(category: nil), in: context(promotionsOff)))
    }

    @Test func acN07UncategorizedPassesEvenWhenSwitchedOff() {
        let value = settings { $0.setNotificationCategory(.uncategorized, enabled: false) }
        #expect(filter.shouldNotify(for: makeEmail(category: .uncategorized), in: context(value)))
    }

    @Test func categoryKeysCompareCaseInsensitively() {
        let value = settings { $0.setNotificationCategory("Promotions", enabled: false) }
        #expect(!filter.shouldNotify(for: makeEmail(category: "PROMOTIONS"), in: context(value)))
    }
}
