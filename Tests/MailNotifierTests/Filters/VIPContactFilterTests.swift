import MailNotifier
import Testing

@Suite("VIPContactFilter (NOTIF-10, AC-N-08)")
struct VIPContactFilterTests {
    let filter = VIPContactFilter()
    let vips = settings { $0.addVIPContact("john@example.com") }

    @Test func acN08VIPMatches() {
        #expect(filter.shouldNotify(for: makeEmail(from: "john@example.com"), in: context(vips)))
    }

    @Test func acN08NonVIPDoesNotMatch() {
        #expect(!filter.shouldNotify(for: makeEmail(from: "jane@example.com"), in: context(vips)))
    }

    @Test func e22VIPMatchIsCaseInsensitive() {
        #expect(filter.shouldNotify(for: makeEmail(from: "John@Example.com"), in: context(vips)))
        let upper = settings { $0.addVIPContact("JOHN@EXAMPLE.COM") }
        #expect(filter.shouldNotify(for: makeEmail(from: "john@example.com"), in: context(upper)))
    }
}
