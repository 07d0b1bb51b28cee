import Cryptography
import Foundation
import Testing

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(SHA256.hexDigest(Data(input.utf8)) == expected)
    }

    @Test func base64URLRoundTripsWithoutPadding() throws {
        for length in 0..<40 {
            let bytes = SecureRandom.bytes(count: length)
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(!text.contains("+"))
            #expect(!text.contains("/"))
            #expect(try #require(Base64URL.decode(text)) == Data(bytes))
        }
    }

    @Test func base64URLRejectsGarbage() {
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab==") == nil)
        #expect(Base64URL.decode("a*b$") == nil)
    }
}
