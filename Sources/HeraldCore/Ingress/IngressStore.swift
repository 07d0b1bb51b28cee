import APNsCore
public import Foundation
public import Postgres

/// What the APNs ingress reads and writes: the apps and keys it authorizes by, each relayed push as a notification of
/// type `apns` with its one delivery, and the final log rows that answer it.
///
/// A relayed push skips expansion: it names one token, not recipients, so no preference, quiet hours or audience
/// applies. The notification is stored `expanded` together with its delivery, in one statement, and the delivery
/// engines are woken after it commits (``DeliveryWakeUp``); from there the engine claims, sends, retries and records it like any
/// other delivery, on the fleet's provider token.
///
/// The delivery goes through the device row of its token when Herald has one, whatever its app (a token is one
/// device's), so an answer that kills the token deactivates that device. A token Herald has never seen gets a row of
/// its own under ``IngressUser``, inactive, in the app of the push's topic and that app's default environment (a
/// `BadDeviceToken` moves it to the other one, as for any device).
public struct IngressStore: Sendable {
    let client: PostgresClient
    private let wakeUp: DeliveryWakeUp
    private let batches: RelayBatchWriter

    public init(client: PostgresClient) {
        self.client = client
        wakeUp = DeliveryWakeUp(client: client)
        batches = RelayBatchWriter(client: client)
    }

    /// Creates the user of tokens only the ingress has seen, if it does not exist yet. Idempotent.
    /// - Returns: Its id, for ``accept(_:user:)``.
    public func prepare() async throws -> UUID {
        let rows = try await client.query(
            """
            WITH created AS (
                INSERT INTO users (external_id, email, name)
                VALUES (\(IngressUser.externalID), \(IngressUser.email), \(IngressUser.name))
                ON CONFLICT (external_id) DO NOTHING
                RETURNING id
            )
            SELECT id FROM created UNION ALL SELECT id FROM users WHERE external_id = \(IngressUser.externalID)
            """)
        guard let row = rows.first else {
            throw PostgresError(kind: .invalidUsage, message: "the ingress user was neither found nor created")
        }
        return try row.decode(column: 0, as: UUID.self)
    }

    /// Every app, for finding a topic's.
    public func apps() async throws -> [App] {
        try await AppStore(client: client).list()
    }

    /// The keys whose provider tokens the ingress takes, with their material: the active ones, and those retiring
    /// within their grace, since a token they signed may still be in use.
    public func verifyingKeys() async throws -> [(key: SigningKey, material: SigningKeyStore.Material)] {
        try await client.query(
            """
            SELECT \(unescaped: SigningKeyStore.columns), key_path, sealed_key FROM apns_signing_keys
            WHERE state = 'active'
               OR (state = 'retiring' AND retired_at > now() - interval '\(unescaped: SigningKeyStore.retirementGrace)')
            ORDER BY team_id, key_id
            """
        ).map { row in
            let key = try SigningKeyStore.decode(row)
            if let path = try row.decode("key_path", as: String?.self) { return (key, .file(path: path)) }
            return (key, .sealed(Array(try row.decode("sealed_key", as: Data.self))))
        }
    }

    /// Stores `submission` durably and wakes the engines; or, when its `apns-id` was stored before for the same token
    /// and app (a client sending again after a lost answer), stores nothing and answers the earlier push's receipt.
    /// - Parameter user: The ingress user's id (``prepare()``).
    /// - Throws: ``RelayConflict/apnsIDInUse`` when the `apns-id` names another push;
    ///   ``RelayConflict/tokenOfAnotherApp`` when another app registered the token.
    public func accept(_ submission: RelaySubmission, user: UUID) async throws -> RelayReceipt {
        let content = try PostgresJSON(encoding: submission.message)
        let trace = try TraceCarrier.capture().map { try PostgresJSON(encoding: $0) }
        let item = RelayBatchWriter.Item(submission: submission, content: content, trace: trace)
        if let receipt = await batches.store(item, user: user) {
            wakeUp.ring()
            return receipt
        }
        // Alone, to tell a resend from an id in use, or from a token of another app.
        do {
            if let receipt = try await RelayBatchWriter.write([item], user: user, client: client).first {
                wakeUp.ring()
                return receipt
            }
        } catch let error as PostgresError where error.isServerError(.uniqueViolation) {
            // The id is a delivery's that is not a relayed push.
            throw RelayConflict.apnsIDInUse
        }
        if let earlier = try await client.query(ReplayStatement(submission: submission)).first {
            guard earlier.isSamePush else { throw RelayConflict.apnsIDInUse }
            return RelayReceipt(id: submission.id.uuid, acceptedAt: earlier.acceptedAt)
        }
        if try await isOtherAppsToken(submission) { throw RelayConflict.tokenOfAnotherApp }
        throw PostgresError(kind: .invalidUsage, message: "the relayed push's device row was neither found nor created")
    }

    /// The final outcomes of the relayed pushes `ids` that have one: what each final log row (not `retrying`) written
    /// since `since` says.
    public func outcomes(of ids: [UUID], since: Date) async throws -> [UUID: RelayOutcome] {
        guard !ids.isEmpty else { return [:] }
        var outcomes: [UUID: RelayOutcome] = [:]
        for (id, outcome) in try await client.query(OutcomesStatement(ids: ids, since: since)) {
            outcomes[id] = outcome
        }
        return outcomes
    }

    /// Whether the push's token is a device of another app than the push's.
    private func isOtherAppsToken(_ submission: RelaySubmission) async throws -> Bool {
        try await client.query(
            """
            SELECT EXISTS (
                SELECT 1 FROM device_tokens t
                WHERE t.token = \(submission.token.hex)
                  AND t.app_id IS NOT NULL AND t.app_id <> \(submission.app.id))
            """
        ).scalar(Bool.self)
    }
}
