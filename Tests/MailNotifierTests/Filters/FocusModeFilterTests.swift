import MailNotifier
import Testing

@Suite("FocusModeFilter (NOTIF-15)")
struct FocusModeFilterTests {
    @Test func stubAlwaysPasses() {
        let filter = FocusModeFilter()
        #expect(filter.shouldNotify(for: makeEmail(), in: context()))
        #expect(filter.shouldNotify(for: makeEmail(isSpam: true, folders: [.spam]), in: context()))
    }
}
