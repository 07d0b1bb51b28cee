public import APNsCore
import Foundation
public import Postgres

/// The fleet's APNs provider tokens in `apns_provider_tokens` (migration 0018): one row per key and generation.
public struct ProviderTokenStore: Sendable {
    /// A stored token with its generation.
    public struct Stored: Sendable, Equatable {
        public let generation: Int64
        public let token: SharedProviderToken
    }

    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// The newest token of a key, if any process stored one.
    public func newest(teamID: String, keyID: String) async throws -> Stored? {
        let rows = try await client.query(
            """
            SELECT generation, token, issued_at FROM apns_provider_tokens
            WHERE team_id = \(teamID) AND key_id = \(keyID)
            ORDER BY generation DESC LIMIT 1
            """)
        guard let row = rows.first else { return nil }
        let (generation, jwt, issuedAt) = try row.decode((Int64, String, Date).self)
        return Stored(generation: generation, token: SharedProviderToken(jwt: jwt, issuedAt: issuedAt))
    }

    /// Stores `token` as `generation` of the key unless another process stored that generation first, or the key
    /// has been retired (a retired key's tokens must not come into use).
    /// - Returns: Whether this token was stored.
    public func insert(
        _ token: SharedProviderToken, generation: Int64, teamID: String, keyID: String
    ) async throws -> Bool {
        try await client.execute(
            """
            INSERT INTO apns_provider_tokens (team_id, key_id, generation, token, issued_at)
            SELECT \(teamID), \(keyID), \(generation), \(token.jwt), \(token.issuedAt)
            WHERE NOT EXISTS (
                SELECT 1 FROM apns_signing_keys
                WHERE team_id = \(teamID) AND key_id = \(keyID) AND state <> 'active')
            ON CONFLICT DO NOTHING
            """) == 1
    }

    /// Deletes a key's generations older than the newest `keep`, which nobody can use any more.
    public func prune(teamID: String, keyID: String, keep: Int64 = 2) async throws {
        try await client.execute(
            """
            DELETE FROM apns_provider_tokens
            WHERE team_id = \(teamID) AND key_id = \(keyID)
              AND generation <= (SELECT max(generation) FROM apns_provider_tokens
                                 WHERE team_id = \(teamID) AND key_id = \(keyID)) - \(keep)
            """)
    }
}
