import APNsCore
import HeraldCore
import Testing

/// A backend's collapse key of up to 64 characters always becomes a collapse id Apple takes, the same one each time.
@Suite struct CollapseIDBackendKeyTests {
    @Test func keysThatFitAppleAreSentAsTheyAre() {
        let ascii = String(repeating: "k", count: 64)
        #expect(CollapseID(backendKey: ascii)?.value == ascii)
        let accented = String(repeating: "é", count: 32)  // 64 bytes of UTF-8
        #expect(CollapseID(backendKey: accented)?.value == accented)
    }

    @Test func longerKeysBecomeTheSameDigestEveryTime() throws {
        let key = String(repeating: "é", count: 40)  // 40 characters, 80 bytes
        let first = try #require(CollapseID(backendKey: key))
        #expect(first.value.utf8.count == CollapseID.maximumLength)
        #expect(first.value.allSatisfy { $0.isHexDigit })
        #expect(CollapseID(backendKey: key) == first)
        #expect(CollapseID(backendKey: String(repeating: "è", count: 40)) != first)
    }

    @Test func emptyAndOverlongKeysAreRefused() {
        #expect(CollapseID(backendKey: "") == nil)
        #expect(CollapseID(backendKey: String(repeating: "k", count: 65)) == nil)
    }

    /// Such a key is refused rather than hashed: hashing would hide the backend's bad value from it.
    @Test(arguments: ["a\r\nb", "a\0b", "a\u{7F}", "a\u{85}b", " a", "a\u{3000}", "\tα"])
    func keysThatCannotBeHeaderValuesAreRefused(key: String) {
        #expect(!HeaderValue.isSafe(key))
        #expect(CollapseID(backendKey: key) == nil)
    }

    /// A key too long for Apple would be hashed into a safe id; it is still refused, for the same reason.
    @Test func longKeysThatCannotBeHeaderValuesAreRefusedToo() {
        #expect(CollapseID(backendKey: String(repeating: "é", count: 40) + "\n") == nil)
    }

    @Test func innerSpacesAndNonASCIIAreHeaderValues() {
        #expect(HeaderValue.isSafe("order 42 · ready"))
        #expect(CollapseID(backendKey: "order 42 · ready") != nil)
    }
}
