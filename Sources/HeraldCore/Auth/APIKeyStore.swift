import Cryptography
import Foundation
public import Postgres

/// Creates, lists, revokes and checks API keys. Only a SHA-256 of each key is stored.
public struct APIKeyStore: Sendable {
    /// Every key starts with this, so leaked keys are easy to recognise (and to scan for).
    public static let keyPrefix = "hk_"
    /// The base64url characters after the prefix: 32 random bytes without padding.
    static let secretLength = 43

    /// Whether `secret` has the shape of a key ``create(name:scope:app:)`` makes: the prefix and 43 base64url
    /// characters. A value of any other shape cannot be a key, so it is refused without a lookup.
    public static func isWellFormed(_ secret: String) -> Bool {
        let bytes = secret.utf8
        guard secret.hasPrefix(keyPrefix), bytes.count == keyPrefix.utf8.count + secretLength else { return false }
        return bytes.dropFirst(keyPrefix.utf8.count).allSatisfy(isBase64URL)
    }

    /// Whether `byte` is one of base64url's 64 characters (padding excluded).
    public static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let columns = """
        id, name, prefix, scope, created_at, last_used_at, revoked_at,
        (SELECT a.external_id FROM apps a WHERE a.id = app_id), rate_limit
        """

    static func decode(_ row: PostgresRow) throws -> APIKey {
        let (id, name, prefix, scope, created, used, revoked, app, rateLimit) =
            try row.decode((UUID, String, String, String, Date, Date?, Date?, String?, Int?).self)
        return APIKey(
            id: id, name: name, prefix: prefix, scope: APIKeyScope(rawValue: scope) ?? .read,
            appID: app.flatMap(ExternalID.init), rateLimit: rateLimit, createdAt: created,
            lastUsedAt: used, revokedAt: revoked)
    }

    /// The rate limits a key may carry, in requests per second.
    public static let rateLimits = 1...100_000

    /// Creates a key: `hk_` followed by 32 random bytes in base64url.
    /// - Parameters:
    ///   - app: The only app the key will see and send for; `nil` for every app.
    ///   - rateLimit: The key's own requests per second (bursts of twice that); `nil` takes the server's.
    /// - Throws: ``DomainError`` `.invalid` when the name is empty or longer than 100 characters or the rate limit is
    ///   outside ``rateLimits``, `.notFound` when no app has the id `app`.
    public func create(
        name: String, scope: APIKeyScope, app: ExternalID? = nil, rateLimit: Int? = nil
    ) async throws -> CreatedAPIKey {
        guard (1...100).contains(name.codePointCount) else {
            throw DomainError.invalid("must be 1 to 100 characters", field: "name")
        }
        if let rateLimit, !Self.rateLimits.contains(rateLimit) {
            throw DomainError.invalid(
                "must be \(Self.rateLimits.lowerBound) to \(Self.rateLimits.upperBound) requests a second",
                field: "rateLimit")
        }
        let secret = Self.keyPrefix + Base64URL.encode(SecureRandom.bytes(count: 32))
        let prefix = String(secret.prefix(11))
        let rows = try await client.query(
            """
            INSERT INTO api_keys (name, prefix, key_hash, scope, app_id, rate_limit)
            SELECT \(name), \(prefix), \(Self.hash(secret)), \(scope.rawValue), a.id, \(rateLimit.map(Int32.init))
            FROM (SELECT (SELECT id FROM apps WHERE external_id = \(app?.rawValue)) AS id) a
            WHERE \(app?.rawValue)::text IS NULL OR a.id IS NOT NULL
            RETURNING \(unescaped: Self.columns)
            """)
        guard let row = rows.first else { throw DomainError.notFound("no app has this id", field: "app") }
        return CreatedAPIKey(key: try Self.decode(row), secret: secret)
    }

    /// Every key, newest first.
    public func list() async throws -> [APIKey] {
        try await client.query("SELECT \(unescaped: Self.columns) FROM api_keys ORDER BY created_at DESC, id").map(
            Self.decode)
    }

    /// Revokes the key with this id or prefix. - Returns: the revoked key, or `nil` when none matches.
    /// - Throws: ``DomainError`` `.conflict` when a prefix matches several keys.
    public func revoke(_ idOrPrefix: String) async throws -> APIKey? {
        let id = UUID(uuidString: idOrPrefix)
        let matches = try await client.query(
            "SELECT id FROM api_keys WHERE id = \(id) OR prefix = \(idOrPrefix)"
        ).decode(UUID.self)
        guard matches.count <= 1 else { throw DomainError.conflict("several keys have this prefix: give the id") }
        guard let match = matches.first else { return nil }
        let rows = try await client.query(
            """
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(match)
            RETURNING \(unescaped: Self.columns)
            """)
        return try Self.decode(rows[0])
    }

    /// The unrevoked key whose secret is `secret`, or `nil`. Records the use at most once a minute per key.
    /// A value not ``isWellFormed(_:)`` is `nil` without a lookup.
    public func authenticate(_ secret: String) async throws -> APIKey? {
        guard Self.isWellFormed(secret) else { return nil }
        let rows = try await client.query(
            """
            WITH k AS (
                SELECT \(unescaped: Self.columns) FROM api_keys
                WHERE key_hash = \(Self.hash(secret)) AND revoked_at IS NULL
            ),
            touched AS (
                UPDATE api_keys a SET last_used_at = now() FROM k
                WHERE a.id = k.id AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')
            )
            SELECT * FROM k
            """)
        return try rows.first.map(Self.decode)
    }

    static func hash(_ secret: String) -> String { SHA256.hexDigest(Data(secret.utf8)) }
}
