import Foundation
public import Postgres

/// Reads the operations view (``OutboxSnapshot``) from one snapshot of the database, so its parts agree.
public struct OutboxStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// The outbox now, confined to `app` (an external id) when given: its deliveries, notifications, rate and keys;
    /// the processes are everyone's, with the claims of `app` and without their pushes in flight, which are every
    /// app's.
    public func snapshot(app: String?) async throws -> OutboxSnapshot {
        try await client.withTransaction { connection in
            try await connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let now = try await connection.query("SELECT now()").scalar(Date.self)
            return OutboxSnapshot(
                at: now, queue: try await Self.queue(connection, app: app),
                appRates: try await Self.appRates(connection, app: app),
                signingKeys: try await Self.signingKeys(connection, app: app),
                workers: try await Self.workers(connection, app: app, now: now))
        }
    }

    /// What waits in the whole outbox, for the engine's gauges: the snapshot's queue alone.
    public func queue() async throws -> OutboxSnapshot.Queue {
        try await client.withConnection { connection in try await Self.queue(connection, app: nil) }
    }

    private static func queue(_ connection: PostgresConnection, app: String?) async throws -> OutboxSnapshot.Queue {
        let counts = try await connection.query(deliveryCounts(app: app)).decode((String, String, Int).self)
        var deliveries: [OutboxSnapshot.DeliveryCount] = []
        for lane in DeliveryLane.allCases {
            for state in OutboxSnapshot.deliveryStates {
                let count = counts.first { $0.0 == lane.rawValue && $0.1 == state }?.2 ?? 0
                deliveries.append(OutboxSnapshot.DeliveryCount(lane: lane, state: state, count: count))
            }
        }
        var scheduled = Dictionary(uniqueKeysWithValues: DeliveryLane.allCases.map { ($0, 0) })
        for (lane, count) in try await connection.query(
            """
            SELECT lane, count(*)::int8 FROM notifications
            WHERE state = 'scheduled'
              AND (\(app)::text IS NULL
                  OR targets ->> \(unescaped: NotificationTargets.Key.appId.sqlLiteral) = \(app))
            GROUP BY lane
            """
        ).decode((String, Int).self) {
            if let lane = DeliveryLane(rawValue: lane) { scheduled[lane] = count }
        }
        let oldest = try await connection.query(
            """
            SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 FROM deliveries
            WHERE finished_at IS NULL AND state = 'pending' AND next_attempt_at <= now()
              AND (\(app)::text IS NULL OR app_id = (SELECT id FROM apps WHERE external_id = \(app)))
            """
        ).scalar(Double?.self)
        return OutboxSnapshot.Queue(deliveries: deliveries, scheduled: scheduled, oldestPendingSeconds: oldest)
    }

    /// Open deliveries by lane and state (`retrying`: pending after an attempt), through the outbox's partial index
    /// of open rows.
    static func deliveryCounts(app: String?) -> PostgresQuery {
        """
        SELECT lane, CASE WHEN state = 'pending' AND attempts > 0 THEN 'retrying' ELSE state END, count(*)::int8
        FROM deliveries
        WHERE finished_at IS NULL
          AND (\(app)::text IS NULL OR app_id = (SELECT id FROM apps WHERE external_id = \(app)))
        GROUP BY 1, 2
        """
    }

    private static func appRates(_ connection: PostgresConnection, app: String?) async throws
        -> [OutboxSnapshot.AppRate]
    {
        try await connection.query(
            """
            SELECT a.external_id, sum(m.count)::float8 / 60
            FROM push_log_minutes m LEFT JOIN apps a ON a.id = m.app_id
            WHERE m.minute = date_trunc('minute', now(), 'UTC') - interval '1 minute' AND m.status <> 'retrying'
              AND (\(app)::text IS NULL OR a.external_id = \(app))
            GROUP BY 1 ORDER BY 2 DESC, 1
            """
        ).decode((String?, Double).self).map { OutboxSnapshot.AppRate(appID: $0, deliveriesPerSecond: $1) }
    }

    private static func signingKeys(_ connection: PostgresConnection, app: String?) async throws
        -> [OutboxSnapshot.SigningKey]
    {
        try await connection.query(
            """
            SELECT k.team_id, k.key_id, k.state, k.paused_until, k.last_refusal_reason, k.last_refused_at
            FROM apns_signing_keys k
            WHERE k.state <> 'retired'
              AND (\(app)::text IS NULL OR EXISTS (
                  SELECT 1 FROM apps a WHERE a.external_id = \(app) AND a.team_id = k.team_id
                    AND (cardinality(k.topics) = 0 OR a.bundle_id = ANY (k.topics))))
            ORDER BY 1, 2
            """
        ).decode((String, String, String, Date?, String?, Date?).self).map {
            OutboxSnapshot.SigningKey(
                teamID: $0, keyID: $1, state: $2, pausedUntil: $3, lastRefusalReason: $4, lastRefusedAt: $5)
        }
    }

    private static func workers(_ connection: PostgresConnection, app: String?, now: Date) async throws
        -> [OutboxSnapshot.Worker]
    {
        try await connection.query(
            """
            SELECT w.worker, w.host, w.started_at, w.last_seen_at, w.in_flight, coalesce(c.claimed, 0),
                   w.paused_until, w.pause_reason, w.consecutive_pauses
            FROM delivery_workers w
            LEFT JOIN (
                SELECT claimed_by, count(*)::int8 AS claimed FROM deliveries
                WHERE finished_at IS NULL AND state = 'sending'
                  AND (\(app)::text IS NULL OR app_id = (SELECT id FROM apps WHERE external_id = \(app)))
                GROUP BY claimed_by
            ) AS c ON c.claimed_by = w.worker
            ORDER BY w.started_at, w.worker
            """
        ).decode((String, String, Date, Date, Int, Int, Date?, String?, Int).self).map {
            OutboxSnapshot.Worker(
                worker: $0, host: $1, startedAt: $2, lastSeenAt: $3,
                isAlive: now.timeIntervalSince($3) < OutboxSnapshot.workerSilence, inFlight: app == nil ? $4 : nil,
                claimed: $5,
                pausedUntil: $6, pauseReason: $7, consecutivePauses: $8)
        }
    }
}
