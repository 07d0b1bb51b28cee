import APNsCore
import Foundation
import Testing

/// The one rule for header values, and the requests the transport refuses by it.
@Suite struct HeaderValueTests {
    @Test(arguments: ["thread-1", "order 42", "café ☕️", "a\u{A0}b", "", "é", "☕️"])
    func fitValuesPass(_ value: String) {
        #expect(HeaderValue.problem(in: value) == nil)
        #expect(HeaderValue.isSafe(value))
    }

    @Test(arguments: ["a\r\nb", "a\nb", "a\rb", "a\u{0}b", "a\tb", "a\u{7F}b", "\u{1B}[31m", "a\u{80}b", "a\u{85}b"])
    func controlCharactersAreRefused(_ value: String) {
        #expect(HeaderValue.problem(in: value) == .controlCharacter)
        #expect(!HeaderValue.isSafe(value))
    }

    @Test(arguments: [" a", "a ", "\u{A0}a", "a\u{3000}", " "])
    func surroundingWhitespaceIsRefused(_ value: String) {
        #expect(HeaderValue.problem(in: value) == .surroundingWhitespace)
    }

    @Test func aRequestNamesItsFirstUnfitHeader() throws {
        let token = try #require(DeviceToken(hex: String(repeating: "ab", count: 32)))
        func request(bundleID: String, collapse: String?) throws -> PushRequest {
            try PushRequest(
                deviceToken: token, bundleID: bundleID, pushType: .alert, collapseID: collapse.flatMap(CollapseID.init),
                payloadJSON: Data(#"{"aps":{}}"#.utf8))
        }
        #expect(try request(bundleID: "com.example.app", collapse: "thread-1").unsafeHeader == nil)
        let collapse = try request(bundleID: "com.example.app", collapse: "a\r\nb").unsafeHeader
        #expect(collapse?.name == "apns-collapse-id")
        #expect(collapse?.problem == .controlCharacter)
        let topic = try request(bundleID: "com.example.app ", collapse: "a\r\nb").unsafeHeader
        #expect(topic?.name == "apns-topic")
        #expect(topic?.problem == .surroundingWhitespace)
    }
}
