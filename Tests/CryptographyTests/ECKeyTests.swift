import Cryptography
import Foundation
import Testing

@Suite struct ECKeyTests {
    @Test func signatureIsRawSixtyFourBytesAndVerifies() throws {
        let key = try P256PrivateKey(pem: TestKeys.p256PrivateKeyPEM())
        let publicKey = try P256PublicKey(pem: key.publicKeyPEM)
        for index in 0..<20 {
            let message = Data("message \(index)".utf8)
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            #expect(publicKey.isValidES256Signature(signature, for: message))
            var flipped = signature
            flipped[index] ^= 0x01
            #expect(!publicKey.isValidES256Signature(flipped, for: message))
        }
        #expect(!publicKey.isValidES256Signature([UInt8](repeating: 0, count: 63), for: Data()))
    }

    @Test func keyLoadsFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-test-\(UUID()).p8").path
        try Data(TestKeys.p256PrivateKeyPEM().utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = try P256PrivateKey(contentsOfFile: path)
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
    }

    @Test func missingFileIsNamed() {
        #expect(throws: KeyError.missingFile(path: "/nonexistent/AuthKey.p8")) {
            try P256PrivateKey(contentsOfFile: "/nonexistent/AuthKey.p8")
        }
    }

    @Test func nonECKeyIsRefused() {
        #expect(throws: KeyError.notAnECKey) { try P256PrivateKey(pem: TestKeys.ed25519PrivateKeyPEM()) }
    }

    @Test func garbageIsNotPEM() {
        #expect(throws: KeyError.notPEM) { try P256PrivateKey(pem: "not a key") }
        #expect(throws: KeyError.notPEM) {
            try P256PublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
    }

    @Test func errorDescriptionsHoldNoKeyMaterial() {
        let pem = TestKeys.ed25519PrivateKeyPEM()
        do {
            _ = try P256PrivateKey(pem: pem)
            Issue.record("expected an error")
        } catch {
            let body = pem.split(separator: "\n")[1]
            #expect(!error.description.contains(body))
        }
    }
}

/// Keys made at run time, so no private key is stored in the repository.
enum TestKeys {
    /// A fresh P-256 key in PKCS#8 PEM, built from a random scalar (valid with overwhelming probability).
    static func p256PrivateKeyPEM() -> String {
        // PKCS#8 PrivateKeyInfo for id-ecPublicKey/prime256v1 wrapping an ECPrivateKey without the public key.
        let prefix: [UInt8] = [
            0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
            0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20,
        ]
        var scalar = SecureRandom.bytes(count: 32)
        scalar[0] &= 0x7f  // stay below the group order
        scalar[0] |= 0x01
        return pem(label: "PRIVATE KEY", der: prefix + scalar)
    }

    /// A fresh Ed25519 key in PKCS#8 PEM: an EC-shaped file that is not an EC key.
    static func ed25519PrivateKeyPEM() -> String {
        let prefix: [UInt8] = [
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
        ]
        return pem(label: "PRIVATE KEY", der: prefix + SecureRandom.bytes(count: 32))
    }

    private static func pem(label: String, der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}
