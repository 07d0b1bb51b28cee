/// Why a key could not be loaded. Descriptions name the file, never the key's bytes.
public enum KeyError: Error, Equatable, CustomStringConvertible, Sendable {
    /// No readable file at the given path.
    case missingFile(path: String)
    /// The text is not a PEM-encoded key OpenSSL can read.
    case notPEM
    /// The key is of another type (RSA, Ed25519, …) where an EC key was expected.
    case notAnECKey
    /// The EC key is on another curve than P-256.
    case wrongCurve(String)
    /// OpenSSL failed for another reason.
    case openSSL(String)

    public var description: String {
        switch self {
        case .missingFile(let path): "no readable key file at \(path)"
        case .notPEM: "the key is not in PEM form (expected a PKCS#8 .p8 file)"
        case .notAnECKey: "the key is not an elliptic-curve key (APNs needs a P-256 key)"
        case .wrongCurve(let curve): "the key is on curve \(curve), not P-256"
        case .openSSL(let detail): "OpenSSL could not use the key: \(detail)"
        }
    }
}
