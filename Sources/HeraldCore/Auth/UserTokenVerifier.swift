public import Cryptography
public import Foundation

/// Verifies the JWTs a backend signs for its users: HS256 with a shared secret and/or ES256 with a public key.
///
/// The token's `sub` is the backend's user id and `exp` is required. Which key checks a token is decided by the key
/// configured for the algorithm the token names, and ``JWT`` refuses any token whose algorithm differs from its
/// key's, so `alg: none` and algorithm confusion (an HS256 token "signed" with the public key) both fail. When an
/// audience or issuer is set, a token must name it, so a token the backend signed for another service with the same
/// key is refused here.
public struct UserTokenVerifier: Sendable {
    /// The shortest HS256 secret taken: RFC 7518 §3.2 asks for a key at least as long as the hash, 32 bytes.
    public static let minimumSecretLength = 32

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
    private let audience: String?
    private let issuer: String?
    /// Clock skew tolerated on `exp` and `nbf`.
    public let leeway: Duration

    /// - Parameters:
    ///   - hmacSecret: The HS256 secret (`HERALD_USER_JWT_SECRET`); `nil` refuses HS256 tokens. The caller refuses
    ///     one shorter than ``minimumSecretLength`` before it gets here.
    ///   - publicKey: The ES256 public key (`HERALD_USER_JWT_PUBLIC_KEY`); `nil` refuses ES256 tokens.
    ///   - audience: When set (`HERALD_USER_JWT_AUDIENCE`), a token's `aud` must be or hold it.
    ///   - issuer: When set (`HERALD_USER_JWT_ISSUER`), a token's `iss` must be it.
    ///   - leeway: Clock skew tolerated on `exp` and `nbf`.
    public init(
        hmacSecret: [UInt8]?, publicKey: P256PublicKey?, audience: String? = nil, issuer: String? = nil,
        leeway: Duration = .seconds(30)
    ) {
        self.hmacSecret = hmacSecret.flatMap { $0.isEmpty ? nil : $0 }
        self.publicKey = publicKey
        self.audience = audience
        self.issuer = issuer
        self.leeway = leeway
    }

    /// Whether any key is configured.
    public var isConfigured: Bool { hmacSecret != nil || publicKey != nil }

    private struct Claims: Decodable {
        var sub: String
        var exp: Double
        var nbf: Double?
        var iss: String?
        var aud: Audience?
    }

    /// A JWT's `aud`: one string or an array of them (RFC 7519 §4.1.3).
    private struct Audience: Decodable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                values = [one]
            } else {
                values = try container.decode([String].self)
            }
        }
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
        if let issuer, claims.iss != issuer { throw .invalid("iss is not this server's issuer") }
        if let audience, !(claims.aud?.values.contains(audience) ?? false) {
            throw .invalid("aud does not name this server")
        }
        guard let user = ExternalID(claims.sub), !user.isReservedForHerald else {
            throw .invalid("sub is not a user id")
        }
        return user
    }
}
