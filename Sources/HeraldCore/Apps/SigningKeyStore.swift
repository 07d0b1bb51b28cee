public import Cryptography
import Foundation
public import Postgres

/// The signing keys Herald may use (`apns_signing_keys`). The material is read only by the process that signs with
/// it; no listing returns it.
public struct SigningKeyStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// How long after its retirement a key's last token may still be in use: Apple accepts a provider token for an
    /// hour after it was signed.
    public static let retirementGrace = "1 hour"

    /// A retiring key reads as retired once the grace has passed, whether or not a gateway has settled it yet.
    static let columns = """
        team_id, key_id, environments, topics, (key_path IS NULL),
        CASE WHEN state = 'retiring' AND retired_at <= now() - interval '\(retirementGrace)' THEN 'retired'
             ELSE state END,
        created_at, retired_at
        """

    static func decode(_ row: PostgresRow) throws -> SigningKey {
        let (team, key, environments, topics, sealed, state, created, retired) = try row.decode(
            (String, String, String, [String], Bool, String, Date, Date?).self)
        return SigningKey(
            teamID: team, keyID: key, environments: SigningKey.Environments(rawValue: environments) ?? .both,
            topics: topics, storage: sealed ? .sealed : .file, state: SigningKey.State(rawValue: state) ?? .retired,
            createdAt: created, retiredAt: retired)
    }

    /// Adds a key whose PEM stays in a file on the host, or updates where it is and what it may sign. Adding a
    /// retired key again makes it active.
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
                sealed_key = NULL, state = 'active', retired_at = NULL
            RETURNING \(unescaped: Self.columns), (xmax = 0) AS inserted
            """)
        try await client.announceSigningChange()
        return (try Self.decode(rows[0]), try rows[0].decode("inserted", as: Bool.self))
    }

    /// Where a key's PEM is: a file on the host, or sealed with AES-256-GCM under the master key.
    public enum Material: Sendable {
        case file(path: String)
        case sealed([UInt8])

        /// The PEM, read from its file or opened with `masterKey` (the key's team and id are the sealing context).
        public func pem(of key: SigningKey, masterKey: AES256GCM?) throws -> String {
            switch self {
            case .file(let path): return try String(contentsOfFile: path, encoding: .utf8)
            case .sealed(let sealed):
                guard let masterKey else {
                    throw DomainError.conflict("the key is sealed and this process has no HERALD_MASTER_KEY_FILE")
                }
                return String(decoding: try masterKey.open(sealed, context: sealingContext(key)), as: UTF8.self)
            }
        }
    }

    /// The active keys with their material: what a delivering process signs with. Only that process reads it; no
    /// route or listing returns it.
    public func activeKeys() async throws -> [(key: SigningKey, material: Material)] {
        try await client.query(
            """
            SELECT \(unescaped: Self.columns), key_path, sealed_key FROM apns_signing_keys
            WHERE state = 'active' ORDER BY team_id, key_id
            """
        ).map { row in
            let key = try Self.decode(row)
            if let path = try row.decode("key_path", as: String?.self) { return (key, .file(path: path)) }
            return (key, .sealed(Array(try row.decode("sealed_key", as: Data.self))))
        }
    }

    /// Adds a key whose PEM is kept sealed in the database under `masterKey`, or replaces a known key's material.
    /// Adding a retired key again makes it active.
    /// - Returns: the key and whether it was added.
    public func add(_ definition: SigningKeyDefinition, pem: String, masterKey: AES256GCM) async throws -> (
        key: SigningKey, added: Bool
    ) {
        let context = sealingContext(teamID: definition.teamID, keyID: definition.keyID)
        let sealed = try masterKey.seal(Array(pem.utf8), context: context)
        let rows = try await client.query(
            """
            INSERT INTO apns_signing_keys (team_id, key_id, environments, topics, sealed_key)
            VALUES (\(definition.teamID), \(definition.keyID), \(definition.environments.rawValue),
                \(definition.topics), \(Data(sealed)))
            ON CONFLICT (team_id, key_id) DO UPDATE
            SET environments = EXCLUDED.environments, topics = EXCLUDED.topics, key_path = NULL,
                sealed_key = EXCLUDED.sealed_key, state = 'active', retired_at = NULL
            RETURNING \(unescaped: Self.columns), (xmax = 0) AS inserted
            """)
        try await client.announceSigningChange()
        return (try Self.decode(rows[0]), try rows[0].decode("inserted", as: Bool.self))
    }

    /// Records that the router paused a key because Apple refused it, for the operations view (``OutboxStore``).
    public func recordRefusal(teamID: String, keyID: String, reason: String, pausedFor pause: Duration) async throws {
        try await client.execute(
            """
            UPDATE apns_signing_keys
            SET paused_until = now() + \(pause.components.seconds) * interval '1 second', last_refusal_reason = \(reason),
                last_refused_at = now()
            WHERE team_id = \(teamID) AND key_id = \(keyID)
            """)
    }

    /// Every key, by team and key id.
    public func list() async throws -> [SigningKey] {
        try await client.query("SELECT \(unescaped: Self.columns) FROM apns_signing_keys ORDER BY team_id, key_id")
            .map(Self.decode)
    }

    /// Stops a key from signing: no push is given to it and no token is signed with it from now on, while pushes
    /// in flight finish with the token they carry. It stays `retiring` for ``retirementGrace``, until no token it
    /// signed can still be in use, and is `retired` from then on: revoking it at Apple can then fail no push.
    /// - Returns: the keys retired (one per team holding `keyID`, or the one of `teamID`).
    public func retire(keyID: String, teamID: String? = nil) async throws -> [SigningKey] {
        let retired = try await client.query(
            """
            UPDATE apns_signing_keys SET state = 'retiring', retired_at = now()
            WHERE key_id = \(keyID) AND (\(teamID)::text IS NULL OR team_id = \(teamID)) AND state = 'active'
            RETURNING \(unescaped: Self.columns)
            """
        ).map(Self.decode)
        if !retired.isEmpty { try await client.announceSigningChange() }
        return retired
    }

    /// Records as `retired` the retiring keys whose grace has passed. - Returns: those keys.
    public func settleRetirements() async throws -> [SigningKey] {
        try await client.query(
            """
            UPDATE apns_signing_keys SET state = 'retired'
            WHERE state = 'retiring' AND retired_at <= now() - interval '\(unescaped: Self.retirementGrace)'
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

extension PostgresClient {
    /// Tells delivering processes that apps or signing keys changed, so a retired key stops signing at once.
    func announceSigningChange() async throws {
        _ = try await query("SELECT pg_notify(\(HeraldChannel.signingKeys), '')")
    }
}

/// What a sealed key is bound to: a sealed PEM opens only in the row of its own team and key.
func sealingContext(teamID: String, keyID: String) -> [UInt8] { Array("herald.apns-key/\(teamID)/\(keyID)".utf8) }
func sealingContext(_ key: SigningKey) -> [UInt8] { sealingContext(teamID: key.teamID, keyID: key.keyID) }
