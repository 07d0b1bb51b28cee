import Foundation

/// The JOSE header of a JWT: the algorithm and an optional key id.
public struct JWTHeader: Codable, Equatable, Sendable {
    public var alg: String
    public var kid: String?
    public var typ: String?

    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}

/// Compact-serialised JSON Web Tokens (RFC 7519) signed with ES256 or HS256.
public enum JWT {
    /// Signs `claims` into `header.claims.signature`.
    /// - Parameters:
    ///   - claims: Any `Encodable` value; encoded as JSON with sorted keys.
    ///   - key: The signing key; its kind sets `alg`.
    ///   - keyID: The `kid` header, if any.
    /// - Throws: ``JWTError`` if the claims cannot be encoded or signing fails.
    public static func encode(
        _ claims: some Encodable, key: JWTSigningKey, keyID: String? = nil
    ) throws(JWTError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = JWTHeader(alg: key.algorithm.rawValue, kid: keyID)
        let headerJSON: Data
        let claimsJSON: Data
        do {
            headerJSON = try encoder.encode(header)
            claimsJSON = try encoder.encode(claims)
        } catch {
            throw .malformed("claims cannot be encoded as JSON")
        }
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        let signature: [UInt8]
        switch key {
        case .es256(let privateKey):
            do {
                signature = try privateKey.signES256(Data(signingInput.utf8))
            } catch {
                throw .signingFailed(error.description)
            }
        case .hs256(let secret):
            signature = HMACSHA256.authenticationCode(for: Data(signingInput.utf8), key: secret)
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Parses `token`, picks its verification key by its header, checks the algorithm against that key and
    /// verifies the signature, then decodes the claims. Claim semantics (expiry, issuer) are the caller's.
    /// - Parameters:
    ///   - token: The compact JWT.
    ///   - claimsType: The type to decode the payload into.
    ///   - key: Returns the verification key for the header (by its `kid`, or by the `alg` it claims when keys
    ///     are kept per algorithm), or nil if unknown. Whatever it returns, a key of another algorithm than the
    ///     header's is refused.
    /// - Throws: ``JWTError``.
    public static func verify<Claims: Decodable>(
        _ token: String, as claimsType: Claims.Type,
        key: (_ header: JWTHeader) -> JWTVerificationKey?
    ) throws(JWTError) -> (header: JWTHeader, claims: Claims) {
        // Split as bytes: splitting a String compares Characters, a noticeable share of a verification.
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Substring.init)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts") }
        guard let headerJSON = Base64URL.decode(parts[0]) else { throw .malformed("header is not base64url") }
        guard let claimsJSON = Base64URL.decode(parts[1]) else { throw .malformed("claims are not base64url") }
        guard let signature = Base64URL.decode(parts[2]) else { throw .malformed("signature is not base64url") }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(JWTHeader.self, from: headerJSON) else {
            throw .malformed("header is not a JSON object with \"alg\"")
        }
        guard let algorithm = JWTAlgorithm(rawValue: header.alg) else { throw .unsupportedAlgorithm(header.alg) }
        guard let verificationKey = key(header) else { throw .unknownKey(keyID: header.kid) }
        guard verificationKey.algorithm == algorithm else {
            throw .algorithmMismatch(expected: verificationKey.algorithm, found: header.alg)
        }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        let valid: Bool
        switch verificationKey {
        case .es256(let publicKey):
            valid = publicKey.isValidES256Signature(signature, for: signingInput)
        case .hs256(let secret):
            valid = HMACSHA256.isValidAuthenticationCode(signature, for: signingInput, key: secret)
        }
        guard valid else { throw .invalidSignature }
        guard let claims = try? decoder.decode(Claims.self, from: claimsJSON) else {
            throw .malformed("claims do not match the expected shape")
        }
        return (header, claims)
    }
}
