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
}
