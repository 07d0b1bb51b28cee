import Foundation
import Testing

@testable import APNsMock
@testable import herald

/// The line `herald dev` prints for each push: API input in it cannot reach the terminal as escape sequences.
@Suite struct PushReportTests {
    static func request(title: String) throws -> MockRecordedRequest {
        let body = try JSONSerialization.data(withJSONObject: ["aps": ["alert": ["title": title]]])
        return MockRecordedRequest(
            connectionID: 1, streamID: 1, method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32),
            headers: [("apns-topic", "dev.herald.demo"), ("apns-push-type", "alert")], neverIndexedHeaders: [],
            body: Array(body), verdict: .accept(apnsID: "5E1B8C4A-0000-4000-8000-000000000000"))
    }

    @Test func printsAPlainTitleAsItIs() throws {
        let line = PushReport.line(for: try Self.request(title: "New Feedback"))
        #expect(line.contains(#"title "New Feedback""#))
        #expect(line.hasSuffix(": accepted"))
        #expect(!line.contains("abab"), "no device token")
    }

    @Test func escapesControlCharactersInTheTitle() throws {
        let title = "\u{1B}]0;owned\u{07}\u{1B}[2J\r\nfake line\u{9B}31m\u{7F}é"
        let line = PushReport.line(for: try Self.request(title: title))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        #expect(line.contains(#"title "\u{1B}]0;owned\u{7}\u{1B}[2J\u{D}\u{A}fake line\u{9B}31m\u{7F}é""#))
    }

    @Test func escapingLeavesOrdinaryTextAlone() {
        #expect(TerminalText.escapingControls("Dark mode ✓ 🌙 \"quoted\"") == "Dark mode ✓ 🌙 \"quoted\"")
        #expect(TerminalText.escapingControls("\u{0}\u{1F}\u{20}\u{7E}\u{A0}") == #"\u{0}\u{1F} ~"# + "\u{A0}")
    }
}
