import APNs
import APNsCore
import Testing

/// One rule for device tokens, at registration and at send: even-length hex of 16 to 256 bytes.
@Suite struct DeviceTokenTests {
    @Test(arguments: [16, 32, 100, 256])
    func tokensOf16To256BytesAreAccepted(bytes: Int) throws {
        let token = try #require(DeviceToken(hex: String(repeating: "Ab", count: bytes)))
        #expect(token.hex == String(repeating: "ab", count: bytes))
    }

    @Test(arguments: [
        "", "abc", String(repeating: "ab", count: 15), String(repeating: "ab", count: 257),
        "zz" + String(repeating: "ab", count: 31),
    ])
    func malformedTokensAreRefused(hex: String) {
        #expect(DeviceToken(hex: hex) == nil)
    }

    @Test func descriptionNeverShowsTheToken() throws {
        let hex = String(repeating: "c0", count: 32)
        let token = try #require(DeviceToken(hex: hex))
        #expect(!"\(token)".contains(hex.prefix(8)))
        #expect("\(token)".contains("32 bytes"))
    }
}
