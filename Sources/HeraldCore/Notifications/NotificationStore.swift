public import Foundation
public import Postgres
import Tracing

/// Accepts notifications into the outbox and reports on them.
public struct NotificationStore: Sendable {
    /// What `POST /events` and `POST /notifications` answer.
    public struct Accepted: Sendable, Equatable {
        public var id: UUID
        /// `true` when an earlier request with the same idempotency key created it.
        public var replayed: Bool
    }

    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Stores one notification row (and the vote a `new_vote` records, in its `appId`'s app, else the default app's)
    /// and wakes the expanders with `NOTIFY`, in one
    /// statement (plus a transaction when an idempotency key is given). It never waits for expansion, so it costs the
    /// same for any audience.
    /// - Parameters:
    ///   - draft: What to send and to whom.
    ///   - apiKeyID: The key that sent it.
    ///   - idempotency: Replays the first answer for a repeated key and creates nothing.
    /// - Throws: ``DomainError`` `.invalid` (field `projectId`) for an unknown project; `.conflict` when the
    ///   idempotency key was used for a different request.
    public func accept(_ draft: NotificationDraft, apiKeyID: UUID?, idempotency: IdempotencyKey? = nil) async throws
        -> Accepted
    {
        try await withSpan(HeraldSpan.accept) { span in
            span.attributes["herald.notification.type"] = draft.type
            let accepted = try await store(draft, apiKeyID: apiKeyID, idempotency: idempotency)
            span.attributes["herald.notification.id"] = accepted.id.uuidString.lowercased()
            span.attributes["herald.replayed"] = accepted.replayed
            return accepted
        }
    }

    /// ``accept(_:apiKeyID:idempotency:)``, inside its span, whose context the row keeps for the push's spans.
    private func store(_ draft: NotificationDraft, apiKeyID: UUID?, idempotency: IdempotencyKey?) async throws
        -> Accepted
    {
        if let idempotency, let earlier = try await replay(idempotency) { return earlier }
        let trace = try TraceCarrier.capture().map { try PostgresJSON(encoding: $0) }
        let content = try PostgresJSON(encoding: draft.message)
        let targets = try PostgresJSON(encoding: draft.targets)
        let project = draft.project?.rawValue
        let (voterUser, voterEmail) = Self.columns(of: draft.vote?.voter)
        let insert: PostgresQuery = """
            WITH pr AS (SELECT id FROM projects WHERE external_id = \(project)),
            n AS (
                INSERT INTO notifications
                    (kind, type, project_id, project_external_id, api_key_id, content, targets, respect_preferences,
                     send_at, expires_at, tags, respect_quiet_hours, lane, trace_context)
                SELECT \(draft.kind.rawValue), \(draft.type), (SELECT id FROM pr), \(project), \(apiKeyID), \(content),
                       \(targets), \(draft.respectPreferences), coalesce(\(draft.sendAt), now()), \(draft.expiresAt),
                       \(draft.tags.map(\.rawValue)), \(draft.respectQuietHours), \(draft.lane.rawValue), \(trace)
                WHERE \(project)::text IS NULL OR EXISTS (SELECT 1 FROM pr)
                RETURNING id
            ),
            k AS (
                INSERT INTO idempotency_keys
                    (api_key_id, key, request_hash, notification_id, response_status, response_body)
                SELECT \(idempotency?.apiKeyID), \(idempotency?.key), \(idempotency?.requestHash), n.id, 202,
                       jsonb_build_object('id', n.id)
                FROM n WHERE \(idempotency?.key)::text IS NOT NULL
                ON CONFLICT DO NOTHING
                RETURNING notification_id
            ),
            v AS (
                INSERT INTO feedback_votes (feedback_id, project_external_id, app_id, voter_user_id, voter_email)
                SELECT \(draft.vote?.feedbackID), \(project),
                       CASE WHEN \(draft.targets.app?.rawValue)::text IS NULL
                            THEN (SELECT a.id FROM apps a WHERE a.is_default)
                            ELSE (SELECT a.id FROM apps a WHERE a.external_id = \(draft.targets.app?.rawValue)) END,
                       \(voterUser), lower(\(voterEmail))
                FROM n WHERE \(draft.vote?.feedbackID)::text IS NOT NULL
                ON CONFLICT DO NOTHING
            )
            SELECT n.id, EXISTS (SELECT 1 FROM k), pg_notify(\(HeraldChannel.notifications), n.id::text)::text
            FROM n
            """
        guard let idempotency else {
            let rows = try await client.query(insert)
            guard let row = rows.first else { throw Self.unknownProject }
            return Accepted(id: try row.decode(column: 0, as: UUID.self), replayed: false)
        }
        let outcome: Accepted? = try await client.withConnection { connection in
            do {
                return try await connection.withTransaction { connection in
                    let rows = try await connection.query(insert)
                    guard let row = rows.first else { throw Self.unknownProject }
                    let (id, recorded) = try row.decode((UUID, Bool).self)
                    // Another request with this key committed first: undo ours and answer with theirs.
                    guard recorded else { throw LostRace() }
                    return Accepted(id: id, replayed: false)
                }
            } catch is LostRace {
                return nil
            }
        }
        if let outcome { return outcome }
        guard let earlier = try await replay(idempotency) else { throw LostRace() }
        return earlier
    }

    private struct LostRace: Error {}

    /// The `voter_user_id` and `voter_email` of a recorded vote.
    private static func columns(of voter: PersonReference?) -> (user: String?, email: String?) {
        switch voter {
        case .user(let id): (id.rawValue, nil)
        case .email(let email): (nil, email)
        case nil: (nil, nil)
        }
    }

    static let unknownProject = DomainError.notFound("no project has this id", field: "projectId")

    /// The earlier answer for `idempotency`, after freeing the key if it is older than 24 hours.
    private func replay(_ idempotency: IdempotencyKey) async throws -> Accepted? {
        let rows = try await client.query(
            """
            WITH expired AS (
                DELETE FROM idempotency_keys
                WHERE api_key_id = \(idempotency.apiKeyID) AND key = \(idempotency.key)
                  AND created_at < now() - interval '24 hours'
                RETURNING 1
            )
            SELECT notification_id, request_hash FROM idempotency_keys
            WHERE api_key_id = \(idempotency.apiKeyID) AND key = \(idempotency.key)
              AND NOT EXISTS (SELECT 1 FROM expired)
            """)
        guard let row = rows.first else { return nil }
        let (id, hash) = try row.decode((UUID, String).self)
        guard hash == idempotency.requestHash else {
            throw DomainError.conflict(
                "this Idempotency-Key was used for a different request", field: "Idempotency-Key")
        }
        return Accepted(id: id, replayed: true)
    }

    /// Forgets idempotency keys older than 24 hours. - Returns: how many were removed.
    @discardableResult
    public func pruneIdempotencyKeys() async throws -> Int {
        try await client.execute("DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'")
    }

    /// A notification's state with counts of its deliveries by state and of its suppressions by reason.
    /// - Returns: `nil` when no notification in `scope` has `id`.
    public func status(_ id: UUID, in scope: AppScope) async throws -> NotificationStatus? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.statusColumns),
                   (SELECT coalesce(jsonb_object_agg(state, c), '{}') FROM
                       (SELECT state, count(*) AS c FROM (\(unescaped: NotificationDeliveries.eachDelivery(withUniqueIDs: false))) AS d
                        GROUP BY state) d),
                   (SELECT coalesce(jsonb_object_agg(reason, c), '{}') FROM
                       (SELECT reason, count(*) AS c FROM notification_suppressions WHERE notification_id = n.id
                        GROUP BY reason) s)
            FROM notifications n WHERE n.id = \(id)
            AND (\(scope.app?.rawValue)::text IS NULL
                OR n.targets ->> \(unescaped: NotificationTargets.Key.appId.sqlLiteral) = \(scope.app?.rawValue))
            """)
        guard let row = rows.first else { return nil }
        var status = try Self.status(from: row)
        status.deliveries = try row.decode(column: Self.statusColumnCount, as: PostgresJSON.self)
            .decode([String: Int].self)
        status.suppressions = try row.decode(column: Self.statusColumnCount + 1, as: PostgresJSON.self)
            .decode([String: Int].self)
        return status
    }

    /// The columns of a ``NotificationStatus`` without its counts, from `notifications n`.
    static let statusColumns = """
        n.id, n.kind, n.type, n.project_external_id, n.state, n.send_at, n.expires_at, n.created_at, n.expanded_at,
        n.canceled_at, n.tags, n.lane
        """
    static let statusColumnCount = 12

    /// A ``NotificationStatus`` without counts from a row that starts with ``statusColumns``.
    static func status(from row: PostgresRow) throws -> NotificationStatus {
        let (id, kind, type, project, state, sendAt, expiresAt, createdAt, expandedAt, canceledAt, tags, lane) =
            try row.decode(
                (UUID, String, String, String?, String, Date, Date?, Date, Date?, Date?, [String], String).self)
        return NotificationStatus(
            id: id, kind: kind, type: type, project: project, state: state, sendAt: sendAt, expiresAt: expiresAt,
            createdAt: createdAt, expandedAt: expandedAt, canceledAt: canceledAt,
            tags: tags.compactMap(NotificationTag.init), lane: DeliveryLane(rawValue: lane) ?? .bulk,
            deliveries: [:], suppressions: [:])
    }
}

/// Where a notification is: `scheduled`, `expanded` or `canceled`, with its counts.
public struct NotificationStatus: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    public var type: String
    public var project: String?
    public var state: String
    public var sendAt: Date
    public var expiresAt: Date?
    public var createdAt: Date
    public var expandedAt: Date?
    public var canceledAt: Date?
    public var tags: [NotificationTag]
    /// The line its deliveries wait in.
    public var lane: DeliveryLane
    /// Deliveries by state (`pending`, `sent`, …); states with none are absent.
    public var deliveries: [String: Int]
    /// Suppressed recipients by reason.
    public var suppressions: [String: Int]
}
