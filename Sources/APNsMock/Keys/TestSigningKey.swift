import Crypto
import Foundation

/// A P-256 signing key made at run time, so no private key is ever stored in the repository.
public struct TestSigningKey: Sendable {
    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form of Apple's `.p8` files.
    public let privateKeyPEM: String
    /// SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`), what `apns-mock` trusts.
    public let publicKeyPEM: String
    /// A 10-character key id, like Apple's.
    public let keyID: String

    /// Generates a fresh key.
    public static func generate(keyID: String? = nil) -> TestSigningKey {
        let key = P256.Signing.PrivateKey()
        let id = keyID ?? String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10))
        return TestSigningKey(
            privateKeyPEM: key.pemRepresentation, publicKeyPEM: key.publicKey.pemRepresentation, keyID: id)
    }

    /// Writes the private key to `path` (mode 0600), as an operator's `.p8` file would be.
    public func writePrivateKey(to path: String) throws {
        try Data(privateKeyPEM.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
