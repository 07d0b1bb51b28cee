import APNsCore
import Foundation
import Postgres
import Synchronization

/// Stores relayed pushes many to a write: whoever finds no write under way writes everything queued (up to
/// ``largestWrite``), then what came meanwhile, until the queue is empty. One statement per push held the ingress to
/// about 1,700 stored pushes a second on two cores, whatever the pool's size, fsync or indexes; the cost was the
/// statement, not the row. A push the batch does not store (its id taken, or its token another app's) comes back nil,
/// and ``IngressStore/accept(_:user:)`` stores it alone, which tells those apart.
final class RelayBatchWriter: Sendable {
    /// A push to store, with its content and trace encoded.
    struct Item: Sendable {
        let submission: RelaySubmission
        let content: PostgresJSON
        let trace: PostgresJSON?
    }

    private struct Pending: Sendable {
        let item: Item
        let stored: CheckedContinuation<RelayReceipt?, Never>
    }

    private struct State {
        var queue: [Pending] = []
        var writing = false
    }

    /// Pushes a statement stores at most, so one transaction stays short.
    static let largestWrite = 500

    private let client: PostgresClient
    private let state = Mutex(State())

    init(client: PostgresClient) { self.client = client }

    /// Stores `submission` with the next batch; nil when the batch did not store it (or failed).
    func store(_ item: Item, user: UUID) async -> RelayReceipt? {
        await withCheckedContinuation { stored in
            let leads = state.withLock { state in
                state.queue.append(Pending(item: item, stored: stored))
                defer { state.writing = true }
                return !state.writing
            }
            if leads { Task { await self.drain(user: user) } }
        }
    }

    private func drain(user: UUID) async {
        while let queued = nextBatch() {
            // A receipt names an id, not a push: two pushes with one `apns-id` (a resend, or another client's push
            // that took the id) would both be given the one the statement stored. So only the first is written with
            // the batch; the others go alone, where ``IngressStore/ReplayStatement`` tells a resend from a stranger.
            var ids = Set<UUID>()
            var batch: [Pending] = []
            for pending in queued {
                if ids.insert(pending.item.submission.id.uuid).inserted {
                    batch.append(pending)
                } else {
                    pending.stored.resume(returning: nil)
                }
            }
            var receipts: [UUID: RelayReceipt] = [:]
            if let stored = try? await Self.write(batch.map(\.item), user: user, client: client) {
                for receipt in stored { receipts[receipt.id] = receipt }
            }
            for pending in batch { pending.stored.resume(returning: receipts[pending.item.submission.id.uuid]) }
        }
    }

    /// The next pushes to write, or nil (and no write under way) when none wait.
    private func nextBatch() -> [Pending]? {
        state.withLock { state in
            guard !state.queue.isEmpty else {
                state.writing = false
                return nil
            }
            let batch = Array(state.queue.prefix(Self.largestWrite))
            state.queue.removeFirst(batch.count)
            return batch
        }
    }
}

extension RelayBatchWriter {
    /// Stores `items` in one transaction: first the device rows of tokens Herald has never seen, then the pushes.
    ///
    /// Two statements, so the second finds every push's device row through the token's index. When one statement
    /// also made the rows, it had to join the new rows to the pushes as CTEs, which PostgreSQL estimates at one row
    /// and joins in nested loops: 300 pushes to new tokens took 90,000 row comparisons per join, 42 ms per statement
    /// with the ingress under aioapns, where the claim and the record each took 1–2 ms.
    static func write(_ items: [Item], user: UUID, client: PostgresClient) async throws -> [RelayReceipt] {
        try await client.withTransaction { connection in
            try await connection.execute(NewTokensStatement(items: items, user: user))
            return try await connection.query(BatchAcceptStatement(items: items))
        }
    }

    /// Makes an inactive device row, user ``IngressUser``'s, in the push's app, for each token no row has. Tokens go
    /// in order, so two writes making rows for the same new tokens wait for each other rather than deadlock; a row a
    /// concurrent write made first is kept (and found by ``BatchAcceptStatement``).
    struct NewTokensStatement: PostgresStatement {
        typealias Row = Void

        enum Parameter: PostgresParameter {
            case tokens, apps, user
        }

        static let name = "herald_ingress_new_tokens"

        static let sql = """
            INSERT INTO device_tokens
                (user_id, token, platform, environment, app_id, is_active, deactivated_at, deactivation_reason)
            SELECT DISTINCT ON (i.token) \(Parameter.user), i.token, 'iOS', a.default_environment, a.id, FALSE, now(),
                   'not_registered'
            FROM unnest(\(Parameter.tokens)::text[], \(Parameter.apps)::uuid[]) AS i (token, app)
            JOIN apps a ON a.id = i.app
            WHERE NOT EXISTS (SELECT 1 FROM device_tokens t WHERE t.token = i.token)
            ORDER BY i.token
            ON CONFLICT (token) DO NOTHING
            """

        let items: [Item]
        let user: UUID

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .tokens: .init(items.map(\.submission.token.hex))
                case .apps: .init(items.map(\.submission.app.id))
                case .user: .init(user)
                }
            }
        }
    }

    /// Stores relayed pushes, one or many, once ``NewTokensStatement`` has made the rows of new tokens: each push's
    /// notification and delivery, both with the push's `apns-id` as id, for every push whose id is not taken yet. A
    /// known token is used only through its own app's device row (or one no app has adopted yet, as before apps
    /// existed): a push to a token another app registered is not stored, so no app's client can reach, move or
    /// deactivate another app's device. Answers nothing for such a push, and for a push whose id is taken
    /// (``IngressStore/ReplayStatement`` says by what).
    struct BatchAcceptStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case ids, tokens, apps, appExternalIDs, contents, expirations, apiKeys, traces
        }

        enum Column: PostgresColumn {
            case id
            case acceptedAt

            var expression: String {
                switch self {
                case .id: "n.id"
                case .acceptedAt: "n.created_at"
                }
            }
        }

        private typealias Target = NotificationTargets.Key

        static let name = "herald_ingress_accept_batch"

        /// Absent values travel as -1 (`expirations`, seconds since 1970), empty text (`apiKeys`) and JSON `null`
        /// (`traces`): arrays are bound without NULL elements.
        static let sql = """
            WITH input AS (
                SELECT DISTINCT ON (i.id) i.id, i.token, i.app, i.app_external_id, i.content,
                       CASE WHEN i.expires_at >= 0 THEN to_timestamp(i.expires_at) END AS expires_at,
                       NULLIF(i.api_key, '')::uuid AS api_key,
                       NULLIF(i.trace, 'null'::jsonb) AS trace
                FROM unnest(\(Parameter.ids)::uuid[], \(Parameter.tokens)::text[], \(Parameter.apps)::uuid[],
                            \(Parameter.appExternalIDs)::text[], \(Parameter.contents)::jsonb[],
                            \(Parameter.expirations)::float8[], \(Parameter.apiKeys)::text[], \(Parameter.traces)::jsonb[])
                    AS i (id, token, app, app_external_id, content, expires_at, api_key, trace)
                WHERE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.id = i.id)
                ORDER BY i.id
            ),
            device AS (
                SELECT i.*, t.id AS device_id, t.user_id, t.environment
                FROM input i
                JOIN device_tokens t ON t.token = i.token AND (t.app_id = i.app OR t.app_id IS NULL)
            ),
            n AS (
                INSERT INTO notifications
                    (id, kind, type, api_key_id, content, targets, respect_preferences, respect_quiet_hours, send_at,
                     expires_at, state, expanded_at, lane, trace_context)
                SELECT device.id, 'direct', '\(IngressStore.notificationType)', device.api_key, device.content,
                       jsonb_build_object(\(Target.appId.sqlLiteral), device.app_external_id,
                           \(Target.deviceIds.sqlLiteral), jsonb_build_array(device.device_id)),
                       FALSE, FALSE, now(), CASE WHEN device.expires_at > now() THEN device.expires_at END,
                       'expanded', now(), '\(DeliveryLane.immediate.rawValue)', device.trace
                FROM device
                ON CONFLICT (id) DO NOTHING
                RETURNING id, created_at
            ),
            d AS (
                INSERT INTO deliveries
                    (id, notification_id, user_id, device_token_id, environment, variant, notification_type, lane,
                     app_id, trace_context)
                SELECT device.id, device.id, device.user_id, device.device_id, device.environment,
                       '\(PayloadVariant.default.rawValue)', '\(IngressStore.notificationType)',
                       '\(DeliveryLane.immediate.rawValue)', device.app, device.trace
                FROM device
                WHERE device.id = ANY (ARRAY(SELECT id FROM n))
            )
            SELECT \(Column.selectList) FROM n
            """

        let items: [Item]

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .ids: .init(items.map(\.submission.id.uuid))
                case .tokens: .init(items.map(\.submission.token.hex))
                case .apps: .init(items.map(\.submission.app.id))
                case .appExternalIDs: .init(items.map(\.submission.app.externalID.rawValue))
                case .contents: .init(items.map(\.content))
                case .expirations: .init(items.map { $0.submission.expiresAt?.timeIntervalSince1970 ?? -1 })
                case .apiKeys: .init(items.map { $0.submission.apiKeyID?.uuidString ?? "" })
                case .traces: .init(items.map { $0.trace ?? PostgresJSON(text: "null") })
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> RelayReceipt {
            RelayReceipt(
                id: try row.decode(Column.id, as: UUID.self),
                acceptedAt: try row.decode(Column.acceptedAt, as: Date.self))
        }
    }
}
