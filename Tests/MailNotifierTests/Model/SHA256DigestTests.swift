import Foundation
import MailNotifier
import Testing

@Suite("SHA256Digest (FIPS 180-4 vectors)")
struct SHA256DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownVectors(input: String, hex: String) {
        #expect(SHA256Digest(of: Data(input.utf8)).hexString == hex)
    }

    @Test func stableEmailIdIsTheHashOfAccountAndMessageId() {
        let id = EmailID.stable(accountId: "acct-1", messageId: "<m1@example.com>")
        #expect(id.rawValue == "d6df0bc0945d30ef0fe51c2b05188d0dff23d1bc748ac2cc4070af022c7d34ad")
    }
}
