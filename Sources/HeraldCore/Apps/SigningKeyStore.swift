public import Foundation
public import Postgres

/// The signing keys Herald may use (`apns_signing_keys`). The material is read only by the process that signs with
/// it; no listing returns it.
public struct SigningKeyStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let columns = "team_id, key_id, environments, topics, (key_path IS NULL), state, created_at, retired_at"

    static func decode(_ row: PostgresRow) throws -> SigningKey {
        let (team, key, environments, topics, sealed, state, created, retired) = try row.decode(
            (String, String, String, [String], Bool, String, Date, Date?).self)
        return SigningKey(
            teamID: team, keyID: key, environments: SigningKey.Environments(rawValue: environments) ?? .both,
            topics: topics, storage: sealed ? .sealed : .file, state: SigningKey.State(rawValue: state) ?? .retired,
            createdAt: created, retiredAt: retired)
    }

    /// Adds a key whose PEM stays in a file on the host, or updates where it is and what it may sign.
    /// - Returns: the key and whether it was added.
    public func add(_ definition: SigningKeyDefinition, keyPath: String) async throws -> (key: SigningKey, added: Bool)
    {
        let rows = try await client.query(
            """
            INSERT INTO apns_signing_keys (team_id, key_id, environments, topics, key_path)
            VALUES (\(definition.teamID), \(definition.keyID), \(definition.environments.rawValue),
                \(definition.topics), \(keyPath))
            ON CONFLICT (team_id, key_id) DO UPDATE
            SET environments = EXCLUDED.environments, topics = EXCLUDED.topics, key_path = EXCLUDED.key_path,
                sealed_key = NULL
            RETURNING \(unescaped: Self.columns), (xmax = 0) AS inserted
            """)
        return (try Self.decode(rows[0]), try rows[0].decode("inserted", as: Bool.self))
    }

    /// The active keys whose material is a file, each with its path: what a delivering process signs with. Only
    /// that process reads it; no route or listing returns it.
    public func activeKeyFiles() async throws -> [(key: SigningKey, path: String)] {
        try await client.query(
            """
            SELECT \(unescaped: Self.columns), key_path FROM apns_signing_keys
            WHERE state = 'active' AND key_path IS NOT NULL ORDER BY team_id, key_id
            """
        ).map { (try Self.decode($0), try $0.decode("key_path", as: String.self)) }
    }

    /// Every key, by team and key id.
    public func list() async throws -> [SigningKey] {
        try await client.query("SELECT \(unescaped: Self.columns) FROM apns_signing_keys ORDER BY team_id, key_id")
            .map(Self.decode)
    }

    /// Stops a key from signing new tokens: pushes in flight finish with the token they carry.
    /// - Returns: the keys retired (one per team holding `keyID`, or the one of `teamID`).
    public func retire(keyID: String, teamID: String? = nil) async throws -> [SigningKey] {
        try await client.query(
            """
            UPDATE apns_signing_keys SET state = 'retired', retired_at = now()
            WHERE key_id = \(keyID) AND (\(teamID)::text IS NULL OR team_id = \(teamID)) AND state <> 'retired'
            RETURNING \(unescaped: Self.columns)
            """
        ).map(Self.decode)
    }

    /// Records the single-key settings (`APNS_TEAM_ID`, `APNS_KEY_ID`, `APNS_KEY_PATH`) as a key for both
    /// environments, so today's installations appear as they are. Idempotent; every start-up runs it, and a key an
    /// operator retired stays retired.
    public func defineDefault(teamID: String, keyID: String, keyPath: String) async throws -> SigningKey {
        let definition = try SigningKeyDefinition(teamID: teamID, keyID: keyID, environments: .both, topics: [])
        let rows = try await client.query(
            """
            INSERT INTO apns_signing_keys (team_id, key_id, environments, key_path)
            VALUES (\(definition.teamID), \(definition.keyID), 'both', \(keyPath))
            ON CONFLICT (team_id, key_id) DO UPDATE
            SET key_path = EXCLUDED.key_path, sealed_key = NULL
            RETURNING \(unescaped: Self.columns)
            """)
        return try Self.decode(rows[0])
    }
}
