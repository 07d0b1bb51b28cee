public import Cryptography
public import Foundation

/// Verifies the JWTs a backend signs for its users: HS256 with a shared secret and/or ES256 with a public key.
///
/// The token's `sub` is the backend's user id and `exp` is required. Which key checks a token is decided by the key
/// configured for the algorithm the token names, and ``JWT`` refuses any token whose algorithm differs from its
/// key's, so `alg: none` and algorithm confusion (an HS256 token "signed" with the public key) both fail.
public struct UserTokenVerifier: Sendable {
    /// Why a user token was refused. Descriptions never hold the token.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case notConfigured
        case invalid(String)
        case expired
        case notYetValid

        public var description: String {
            switch self {
            case .notConfigured: "user tokens are not accepted: no HERALD_USER_JWT_SECRET or HERALD_USER_JWT_PUBLIC_KEY"
            case .invalid(let reason): "invalid user token: \(reason)"
            case .expired: "the user token has expired"
            case .notYetValid: "the user token is not valid yet"
            }
        }
    }

    private let hmacSecret: [UInt8]?
    private let publicKey: P256PublicKey?
    /// Clock skew tolerated on `exp` and `nbf`.
    public let leeway: Duration

    /// - Parameters:
    ///   - hmacSecret: The HS256 secret (`HERALD_USER_JWT_SECRET`); `nil` refuses HS256 tokens.
    ///   - publicKey: The ES256 public key (`HERALD_USER_JWT_PUBLIC_KEY`); `nil` refuses ES256 tokens.
    ///   - leeway: Clock skew tolerated on `exp` and `nbf`.
    public init(hmacSecret: [UInt8]?, publicKey: P256PublicKey?, leeway: Duration = .seconds(30)) {
        self.hmacSecret = hmacSecret.flatMap { $0.isEmpty ? nil : $0 }
        self.publicKey = publicKey
        self.leeway = leeway
    }

    /// Whether any key is configured.
    public var isConfigured: Bool { hmacSecret != nil || publicKey != nil }

    private struct Claims: Decodable {
        var sub: String
        var exp: Double
        var nbf: Double?
    }

    /// The user the token speaks for.
    /// - Throws: ``Failure``.
    public func verify(_ token: String, now: Date = Date()) throws(Failure) -> ExternalID {
        guard isConfigured else { throw .notConfigured }
        guard token.utf8.count <= 8192 else { throw .invalid("too long") }
        let claims: Claims
        do {
            claims = try JWT.verify(token, as: Claims.self) { header in
                switch header.alg {
                case JWTAlgorithm.hs256.rawValue: hmacSecret.map { .hs256(secret: $0) }
                case JWTAlgorithm.es256.rawValue: publicKey.map { .es256($0) }
                default: nil
                }
            }.claims
        } catch {
            throw .invalid(error.description)
        }
        let slack = Double(leeway.components.seconds)
        guard claims.exp + slack > now.timeIntervalSince1970 else { throw .expired }
        if let nbf = claims.nbf, nbf - slack > now.timeIntervalSince1970 { throw .notYetValid }
        guard let user = ExternalID(claims.sub) else { throw .invalid("sub is not a user id") }
        return user
    }
}
