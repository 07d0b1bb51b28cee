import MailNotifier
import Testing

@Suite("MutedThreadFilter (NOTIF-11, AC-N-08)")
struct MutedThreadFilterTests {
    let filter = MutedThreadFilter()
    let muted = settings { $0.toggleMuteThread("T-123") }

    @Test func acN08MutedThreadIsSuppressed() {
        #expect(!filter.shouldNotify(for: makeEmail(thread: "T-123"), in: context(muted)))
    }

    @Test func acN08OtherThreadPasses() {
        #expect(filter.shouldNotify(for: makeEmail(thread: "T-999"), in: context(muted)))
    }
}
