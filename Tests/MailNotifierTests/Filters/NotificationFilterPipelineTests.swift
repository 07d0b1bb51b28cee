import MailNotifier
import Synchronization
import Testing

/// A filter that counts its calls, to prove early exit.
final class CountingFilter: NotificationFilter {
    let name: FilterName
    let result: Bool
    let calls = Atomic<Int>(0)

    init(_ name: FilterName, result: Bool) {
        self.name = name
        self.result = result
    }

    func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        calls.add(1, ordering: .relaxed)
        return result
    }
}

@Suite("NotificationFilterPipeline (NOTIF-07, AC-N-05)")
struct NotificationFilterPipelineTests {
    let pipeline = NotificationFilterPipeline.standard

    @Test func e04VIPOverridesMutedQuietSpamAndDisabledCategory() throws {
        let value = try settings {
            $0.addVIPContact("boss@example.com")
            $0.toggleMuteThread("T-1")
            $0.setNotificationCategory(.promotions, enabled: false)
            $0.quietHoursEnabled = true
            try $0.setQuietHours(start: 1320, end: 420)
        }
        let email = makeEmail(from: "Boss@Example.com", isSpam: true, category: .promotions)
        #expect(pipeline.decide(email, in: context(value, now: at(23, 30))) == .vip)
    }

    @Test func acN05AnyRejectionSuppresses() {
        let value = settings { $0.setNotificationCategory(.promotions, enabled: false) }
        let email = makeEmail(category: .promotions)
        #expect(pipeline.decide(email, in: context(value)) == .rejected(by: .category))
    }

    @Test func acN05AllFiltersPassing() {
        #expect(pipeline.decide(makeEmail(), in: context()) == .passed)
    }

    @Test func acN05EmptyInputGivesEmptyOutput() {
        #expect(pipeline.filter([], in: context()).isEmpty)
    }

    @Test func acN05FirstRejectionStopsTheChain() {
        let first = CountingFilter("first", result: true)
        let rejecting = CountingFilter("rejecting", result: false)
        let never = CountingFilter("never", result: true)
        let custom = NotificationFilterPipeline(
            override: CountingFilter("vip", result: false), filters: [first, rejecting, never])
        #expect(custom.decide(makeEmail(), in: context()) == .rejected(by: "rejecting"))
        #expect(first.calls.load(ordering: .relaxed) == 1)
        #expect(never.calls.load(ordering: .relaxed) == 0)
    }

    @Test func acN05VIPSkipsEveryOtherFilter() {
        let other = CountingFilter("other", result: false)
        let custom = NotificationFilterPipeline(override: CountingFilter("vip", result: true), filters: [other])
        #expect(custom.decide(makeEmail(), in: context()) == .vip)
        #expect(other.calls.load(ordering: .relaxed) == 0)
    }

    @Test func standardOrderIsCheapestFirst() {
        #expect(
            pipeline.filters.map(\.name) == [
                .account, .spam, .folderType, .mutedThread, .category, .quietHours, .focusMode,
            ])
        #expect(pipeline.override.name == .vip)
    }

    @Test func filterKeepsOnlyAllowedEmailsInOrder() {
        let emails = [makeEmail("a"), makeEmail("b", isSpam: true), makeEmail("c")]
        #expect(pipeline.filter(emails, in: context()).map(\.id) == ["a", "c"])
    }
}
