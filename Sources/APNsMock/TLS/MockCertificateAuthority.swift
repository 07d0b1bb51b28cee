import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway certificate authority and the server certificate it signs for `apns-mock`, made at run
/// time. Clients trust the mock by adding ``caCertificatePEM`` as an extra CA.
public struct MockCertificateAuthority: Sendable {
    /// The CA certificate clients must trust.
    public let caCertificatePEM: String
    /// The server certificate chain (leaf) and its key, for NIOSSL.
    let serverCertificate: NIOSSLCertificate
    let serverKey: NIOSSLPrivateKey
    /// The server certificate as PEM, for another TLS server made for tests or `herald dev` (the APNs ingress's).
    public let serverCertificatePEM: String
    /// The server certificate's private key as PEM (PKCS#8).
    public let serverKeyPEM: String

    /// - Parameter serverNames: DNS names and IP addresses the server certificate is valid for.
    public init(serverNames: [String] = ["localhost", "127.0.0.1"]) throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            OrganizationName("Herald")
            // A unique name per run: a client trusting several mocks' CAs picks the issuer by name.
            CommonName("Herald apns-mock test CA \(UUID().uuidString.prefix(8))")
        }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 30 * 86400, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let serverName = try DistinguishedName { CommonName(serverNames.first ?? "localhost") }
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 30 * 86400, issuer: caName, subject: serverName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                Certificate.Extension(
                    oid: .X509ExtensionID.subjectAlternativeName, critical: false,
                    value: ArraySlice(SubjectAlternativeNameDER.encode(serverNames)))
            },
            issuerPrivateKey: .init(caKey))
        caCertificatePEM = try ca.serializeAsPEM().pemString
        serverCertificatePEM = try server.serializeAsPEM().pemString
        serverKeyPEM = serverKey.pemRepresentation
        self.serverCertificate = try NIOSSLCertificate(bytes: Array(serverCertificatePEM.utf8), format: .pem)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKeyPEM.utf8), format: .pem)
    }

    /// Writes the CA certificate as PEM, for `--apns-ca-file` / `HERALD_APNS_CA_FILE`.
    public func writeCACertificate(to path: String) throws {
        try Data(caCertificatePEM.utf8).write(to: URL(fileURLWithPath: path))
    }
}

/// DER for a SubjectAlternativeName extension value: DNS names and IPv4 addresses.
enum SubjectAlternativeNameDER {
    static func encode(_ names: [String]) -> [UInt8] {
        var content: [UInt8] = []
        for name in names {
            if let address = ipv4Bytes(name) {
                content += [0x87] + length(address.count) + address
            } else {
                let bytes = Array(name.utf8)
                content += [0x82] + length(bytes.count) + bytes
            }
        }
        return [0x30] + length(content.count) + content
    }

    private static func ipv4Bytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }

    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        if count <= 0xFF { return [0x81, UInt8(count)] }
        return [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
    }
}
