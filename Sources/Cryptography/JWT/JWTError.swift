/// Why a JWT was refused. Descriptions never include the token or key material.
public enum JWTError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Not three base64url parts, or a part is not valid JSON of the expected shape.
    case malformed(String)
    /// The header names an algorithm Herald does not accept (including `none`).
    case unsupportedAlgorithm(String)
    /// The header's algorithm differs from the verification key's.
    case algorithmMismatch(expected: JWTAlgorithm, found: String)
    /// No verification key is known for the header's `kid`.
    case unknownKey(keyID: String?)
    /// The signature does not verify.
    case invalidSignature
    /// Signing failed inside OpenSSL.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .malformed(let part): "malformed JWT: \(part)"
        case .unsupportedAlgorithm(let name): "JWT algorithm \"\(name)\" is not accepted"
        case .algorithmMismatch(let expected, let found):
            "JWT algorithm \(found) where \(expected.rawValue) is required"
        case .unknownKey(let keyID): "no key for JWT key id \(keyID.map { "\"\($0)\"" } ?? "(none)")"
        case .invalidSignature: "JWT signature is invalid"
        case .signingFailed(let detail): "JWT signing failed: \(detail)"
        }
    }
}
