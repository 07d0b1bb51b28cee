/// The JWS algorithms Herald signs and accepts. `none` and every other algorithm are refused.
public enum JWTAlgorithm: String, Sendable, Codable {
    case es256 = "ES256"
    case hs256 = "HS256"
}

/// A key that signs JWTs, with its algorithm fixed by its kind.
public enum JWTSigningKey: Sendable {
    case es256(P256PrivateKey)
    case hs256(secret: [UInt8])

    var algorithm: JWTAlgorithm {
        switch self {
        case .es256: .es256
        case .hs256: .hs256
        }
    }
}

/// A key that verifies JWTs. The key decides the algorithm: a token whose header names another
/// algorithm is rejected, so an HS256 token can never be checked against a public key's bytes.
public enum JWTVerificationKey: Sendable {
    case es256(P256PublicKey)
    case hs256(secret: [UInt8])

    var algorithm: JWTAlgorithm {
        switch self {
        case .es256: .es256
        case .hs256: .hs256
        }
    }
}
