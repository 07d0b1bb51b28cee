public import Foundation
public import Postgres

/// What ``DeliveryLogStore/prune(before:chunk:)`` removed.
public struct DeliveryLogPruning: Sendable, Hashable {
    /// Log rows, those of the dropped partitions included.
    public var logs: Int
    /// Whole days of the log dropped as partitions.
    public var partitionsDropped: Int
    /// Interactions with pushes sent before the cutoff, which go with their day of the log.
    public var interactions: Int = 0
    /// Finished deliveries moved from the outbox into the log, left there by a release before Migrations/0029.
    public var deliveriesMoved: Int
}

/// Reads and prunes `push_notification_logs`.
public struct DeliveryLogStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Rows matching `filter`, newest first, starting after `cursor`.
    public func list(
        _ filter: DeliveryLogFilter, limit: Int, before cursor: DeliveryLogCursor? = nil
    ) async throws -> [DeliveryLogEntry] {
        var bindings = PostgresBindings()
        var conditions = conditions(for: filter, bindings: &bindings)
        if let cursor {
            bindings.append(cursor.createdAt)
            bindings.append(cursor.id)
            conditions.append("(l.created_at, l.id) < ($\(bindings.count - 1), $\(bindings.count))")
        }
        bindings.append(max(1, min(limit, 10_000)))
        let sql =
            Self.select + Self.whereClause(conditions)
            + " ORDER BY l.created_at DESC, l.id DESC LIMIT $\(bindings.count)"
        return try await entries(PostgresQuery(unsafeSQL: sql, bindings: bindings))
    }

    /// Rows matching `filter` created at or after `since`, oldest first: what `--follow` prints next.
    public func listNew(_ filter: DeliveryLogFilter, since: Date, limit: Int) async throws -> [DeliveryLogEntry] {
        var bindings = PostgresBindings()
        var conditions = conditions(for: filter, bindings: &bindings)
        bindings.append(since)
        conditions.append("l.created_at >= $\(bindings.count)")
        bindings.append(max(1, min(limit, 10_000)))
        let sql = Self.select + Self.whereClause(conditions) + " ORDER BY l.created_at, l.id LIMIT $\(bindings.count)"
        return try await entries(PostgresQuery(unsafeSQL: sql, bindings: bindings))
    }

    /// Deletes log rows created before `cutoff`, after moving into the log any finished delivery left in the outbox.
    ///
    /// Since Migrations/0029 a delivery leaves the outbox as it finishes; only replicas of an earlier release, while
    /// they are rolled over, finish one in place. Each such row is deleted, and one canceled outside the engine (the
    /// only kind those replicas did not log) gets its log row, dated when it finished, as the migration did.
    ///
    /// Whole days of the log go as partitions (``LogPartitions/drop(endingBy:)``); what is left before the cutoff
    /// (the rows of the day holding it, and old rows in the default partition) is deleted in chunks, as are the
    /// moved deliveries, so no statement holds locks for long.
    public func prune(before cutoff: Date, chunk: Int = 10_000) async throws -> DeliveryLogPruning {
        var moved = 0
        while true {
            let count = try await client.query(Self.moveFinishedStatement(chunk: chunk, keepingFrom: cutoff))
                .scalar(Int.self)
            moved += count
            if count < chunk { break }
        }
        let dropped = try await LogPartitions(client: client).drop(endingBy: cutoff)
        var pruning = DeliveryLogPruning(
            logs: dropped.rows, partitionsDropped: dropped.partitions, deliveriesMoved: moved)
        while true {
            // Partition pruning leaves only partitions that start before the cutoff: after the drop, the day holding
            // it and the default partition. Rows are found by the primary key, (created_at, id).
            let deleted = try await client.execute(
                """
                DELETE FROM push_notification_logs
                WHERE created_at < \(cutoff) AND (created_at, id) IN (
                    SELECT created_at, id FROM push_notification_logs WHERE created_at < \(cutoff) LIMIT \(chunk))
                """)
            pruning.logs += deleted
            if deleted < chunk { break }
        }
        pruning.interactions = try await pruneInteractions(before: cutoff, chunk: chunk)
        // The log's delete trigger took off each deleted row; every minute wholly before the cutoff goes as well,
        // whatever a row's device has become since (its app when written decides its minute's key).
        try await client.execute(
            "DELETE FROM push_log_minutes WHERE minute < date_trunc('minute', \(cutoff)::timestamptz, 'UTC')")
        return pruning
    }

    /// Drops the interactions' days before `cutoff` and deletes what is left before it, as for the log: an
    /// interaction is kept as long as the log row of the push it answers.
    private func pruneInteractions(before cutoff: Date, chunk: Int) async throws -> Int {
        var pruned = try await LogPartitions(client: client, table: .interactions).drop(endingBy: cutoff).rows
        while true {
            let deleted = try await client.execute(
                """
                DELETE FROM push_interactions
                WHERE sent_at < \(cutoff) AND (sent_at, id) IN (
                    SELECT sent_at, id FROM push_interactions WHERE sent_at < \(cutoff) LIMIT \(chunk))
                """)
            pruned += deleted
            if deleted < chunk { return pruned }
        }
    }

    /// Moves up to `chunk` finished deliveries (found through deliveries_finished_idx) out of the outbox; those that
    /// finished before `cutoff` get no log row, which the same prune would delete.
    private static func moveFinishedStatement(chunk: Int, keepingFrom cutoff: Date) -> PostgresQuery {
        """
        WITH finished AS (
            DELETE FROM deliveries WHERE id = ANY (ARRAY(
                SELECT id FROM deliveries WHERE finished_at IS NOT NULL LIMIT \(chunk)))
            RETURNING id, notification_id, user_id, device_token_id, environment, state, attempts, last_status,
                last_reason, finished_at, notification_type
        ), logged AS (
            INSERT INTO push_notification_logs (
                user_id, device_token_id, notification_id, delivery_id, notification_type, status, project_id,
                environment, attempt, http_status, apns_reason, created_at)
            SELECT f.user_id, f.device_token_id, f.notification_id, f.id, coalesce(f.notification_type, n.type),
                f.state, n.project_id, f.environment, f.attempts, f.last_status, f.last_reason, f.finished_at
            FROM finished AS f JOIN notifications AS n ON n.id = f.notification_id
            WHERE f.state = 'canceled' AND f.finished_at >= \(cutoff) AND NOT EXISTS (
                SELECT 1 FROM push_notification_logs AS l
                WHERE l.status = 'canceled' AND l.notification_id = f.notification_id AND l.delivery_id = f.id
                    AND l.created_at >= n.created_at)
        )
        SELECT count(*) FROM finished
        """
    }

    private func conditions(for filter: DeliveryLogFilter, bindings: inout PostgresBindings) -> [String] {
        var conditions: [String] = []
        func add(_ column: String, _ value: some PostgresEncodable, comparison: String = "=") {
            bindings.append(value)
            conditions.append("\(column) \(comparison) $\(bindings.count)")
        }
        if let value = filter.userID { add("u.external_id", value) }
        if let value = filter.deviceID { add("l.device_token_id", value) }
        if let value = filter.projectID { add("p.external_id", value) }
        if let value = filter.notificationID { add("l.notification_id", value) }
        if let value = filter.type { add("l.notification_type", value) }
        if let value = filter.status { add("l.status", value.rawValue) }
        if let value = filter.reason { add("l.apns_reason", value) }
        if let value = filter.since { add("l.created_at", value, comparison: ">=") }
        if let value = filter.until { add("l.created_at", value, comparison: "<") }
        if let value = filter.appID {
            bindings.append(value)
            conditions.append(
                "l.device_token_id IN (SELECT d.id FROM device_tokens d JOIN apps a ON a.id = d.app_id "
                    + "WHERE a.external_id = $\(bindings.count))")
        }
        return conditions
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    private func entries(_ query: PostgresQuery) async throws -> [DeliveryLogEntry] {
        try await client.query(query).map { row in
            DeliveryLogEntry(
                id: try row.decode(column: 0, as: UUID.self), createdAt: try row.decode(column: 1, as: Date.self),
                userID: try row.decode(column: 2, as: String.self), deviceID: try row.decode(column: 3, as: UUID?.self),
                notificationID: try row.decode(column: 4, as: UUID.self),
                deliveryID: try row.decode(column: 5, as: UUID.self), type: try row.decode(column: 6, as: String.self),
                status: try row.decode(column: 7, as: String.self),
                feedbackID: try row.decode(column: 8, as: String?.self),
                projectID: try row.decode(column: 9, as: String?.self),
                environment: try row.decode(column: 10, as: String.self),
                attempt: try row.decode(column: 11, as: Int.self),
                httpStatus: try row.decode(column: 12, as: Int?.self),
                reason: try row.decode(column: 13, as: String?.self),
                latencyMs: try row.decode(column: 14, as: Double?.self),
                errorMessage: try row.decode(column: 15, as: String?.self),
                apnsUniqueID: try row.decode(column: 16, as: String?.self),
                lane: try row.decode(column: 17, as: String?.self).flatMap(DeliveryLane.init(rawValue:)))
        }
    }

    private static let select = """
        SELECT l.id, l.created_at, u.external_id, l.device_token_id, l.notification_id, l.delivery_id,
            l.notification_type, l.status, l.feedback_id, p.external_id, l.environment, l.attempt, l.http_status,
            l.apns_reason, l.latency_ms, l.error_message, l.apns_unique_id, n.lane
        FROM push_notification_logs AS l
        JOIN users AS u ON u.id = l.user_id
        LEFT JOIN projects AS p ON p.id = l.project_id
        LEFT JOIN notifications AS n ON n.id = l.notification_id
        """
}
