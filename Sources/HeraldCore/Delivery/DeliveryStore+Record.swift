import APNsCore
import Foundation
import Postgres

extension DeliveryStore {
    /// Writes a batch's results in one transaction: a delivery that finished leaves the outbox (DELETE), one still
    /// open is updated over arrays, and every attempt gets its log row (COPY), which is a finished delivery's record;
    /// then device changes — deactivations (cancelling the device's pending deliveries), environment corrections and
    /// `last_used_at` — locking devices in id order so concurrent workers cannot deadlock.
    ///
    /// Only rows still held by this claim are deleted or updated: `workerID` and the attempt count the claim set. A
    /// row whose lease ran out may have been claimed again since, by another worker or by another task of this one
    /// (same id, one attempt more). Its attempt is logged all the same, for the push went out.
    /// - Returns: The devices deactivated.
    public func record(_ attempts: [DeliveryAttempt], workerID: String) async throws -> [DeactivatedDevice] {
        guard !attempts.isEmpty else { return [] }
        let finished = attempts.filter { $0.outcome.state.isFinal }
        let open = attempts.filter { !$0.outcome.state.isFinal }
        try await client.withTransaction { connection in
            if !finished.isEmpty {
                try await Self.write(
                    finished, on: connection, inPlace: Self.deleteInPlaceStatement, byID: Self.deleteStatement,
                    bindings: { Self.deleteBindings($0, workerID: workerID, byLocation: $1) })
            }
            if !open.isEmpty {
                try await Self.write(
                    open, on: connection, inPlace: Self.recordInPlaceStatement, byID: Self.recordStatement,
                    bindings: { Self.recordBindings($0, workerID: workerID, byLocation: $1) })
            }
            _ = try await connection.copy(try Self.logRows(attempts), into: "push_notification_logs")
        }
        let deactivated = try await deactivateDevices(attempts)
        try await markDevicesUsed(attempts)
        return deactivated
    }

    /// Runs `inPlace` over `attempts`' claimed rows, then `byID` over those it did not find where the claim left
    /// them; `bindings` gives a statement's parameters for some attempts, by location or not.
    private static func write(
        _ attempts: [DeliveryAttempt], on connection: PostgresConnection, inPlace: PostgresPreparedStatement,
        byID: PostgresPreparedStatement, bindings: ([DeliveryAttempt], Bool) -> PostgresBindings
    ) async throws {
        let written = try await connection.query(inPlace, bindings(attempts, true)).decode(UUID.self)
        guard written.count < attempts.count else { return }
        let found = Set(written)
        let moved = attempts.filter { !found.contains($0.delivery.id) }
        _ = try await connection.query(byID, bindings(moved, false))
    }

    /// The ids of `attempts`, then `workerID`, the claims' attempt counts and (`byLocation`) the claimed rows'
    /// locations.
    static func deleteBindings(
        _ attempts: [DeliveryAttempt], workerID: String, byLocation: Bool
    ) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(attempts.map(\.delivery.id))
        appendClaims(of: attempts, workerID: workerID, byLocation: byLocation, to: &bindings)
        return bindings
    }

    /// The result columns of `attempts`, then `workerID`, the claims' attempt counts and (`byLocation`) the claimed
    /// rows' locations.
    static func recordBindings(
        _ attempts: [DeliveryAttempt], workerID: String, byLocation: Bool
    ) -> PostgresBindings {
        var ids: [UUID] = []
        var states: [String] = []
        var environments: [String] = []
        var refunds: [Int] = []
        var nextAttempts: [Date] = []
        var statuses: [Int] = []
        var reasons: [String] = []
        for attempt in attempts {
            let delivery = attempt.delivery
            ids.append(delivery.id)
            states.append(attempt.outcome.state.rawValue)
            var environment = delivery.environment
            var next = delivery.dueAt
            switch attempt.outcome {
            case .retryInOtherEnvironment(let other):
                environment = other
                next = attempt.finishedAt
            case .retry(let at, _): next = at
            case .retryShortened, .pauseKey, .release: next = attempt.finishedAt
            default: break
            }
            environments.append(environment.rawValue)
            refunds.append(attempt.outcome.refundsAttempt ? 1 : 0)
            nextAttempts.append(next)
            statuses.append(attempt.httpStatus ?? 0)
            reasons.append(attempt.reason?.text ?? "")
        }
        var bindings = PostgresBindings()
        bindings.append(ids)
        bindings.append(states)
        bindings.append(environments)
        bindings.append(refunds)
        bindings.append(nextAttempts)
        bindings.append(statuses)
        bindings.append(reasons)
        appendClaims(of: attempts, workerID: workerID, byLocation: byLocation, to: &bindings)
        return bindings
    }

    /// What a record statement checks a row's claim by: `workerID`, the attempt counts the claims set and
    /// (`byLocation`) the claimed rows' locations.
    private static func appendClaims(
        of attempts: [DeliveryAttempt], workerID: String, byLocation: Bool, to bindings: inout PostgresBindings
    ) {
        bindings.append(workerID)
        bindings.append(attempts.map(\.delivery.attempt))
        if byLocation { bindings.append(attempts.map(\.delivery.rowLocation.ctid)) }
    }

    private static func logRows(_ attempts: [DeliveryAttempt]) throws -> PostgresCopyRows {
        var rows = PostgresCopyRows(columns: logColumns, reservingCapacity: attempts.count * 512)
        for attempt in attempts {
            let delivery = attempt.delivery
            try rows.appendRow { row in
                row.append(delivery.userID)
                row.append(delivery.deviceID)
                row.append(delivery.notificationID)
                row.append(delivery.id)
                row.append(delivery.notificationType)
                row.append(attempt.outcome.logStatus.rawValue)
                row.append(attempt.feedbackID)
                row.append(delivery.projectID)
                row.append(attempt.payload)
                row.append(attempt.errorMessage)
                row.append(delivery.id)
                row.append(delivery.environment.rawValue)
                row.append(Int32(clamping: delivery.attempt - (attempt.outcome.refundsAttempt ? 1 : 0)))
                row.append(attempt.httpStatus.map { Int32(clamping: $0) })
                row.append(attempt.reason?.text)
                row.append(attempt.latency.map { $0 * 1000 })
            }
        }
        return rows
    }

    private func deactivateDevices(_ attempts: [DeliveryAttempt]) async throws -> [DeactivatedDevice] {
        var byDevice: [UUID: (reason: DeactivationReason, appleTimestamp: Date)] = [:]
        for attempt in attempts {
            if case .deactivateDevice(let reason, let timestamp) = attempt.outcome {
                byDevice[attempt.delivery.deviceID] = (reason, timestamp)
            }
        }
        guard !byDevice.isEmpty else { return [] }
        let ids = byDevice.keys.sorted { $0.uuidString < $1.uuidString }
        var bindings = PostgresBindings()
        bindings.append(ids)
        bindings.append(ids.map { byDevice[$0]!.reason.rawValue })
        bindings.append(ids.map { byDevice[$0]!.appleTimestamp })
        let rows = try await client.query(Self.deactivateStatement, bindings)
        return try rows.decode((UUID, String, String).self).compactMap { id, user, reason in
            DeactivationReason(rawValue: reason).map {
                DeactivatedDevice(deviceID: id, userExternalID: user, reason: $0)
            }
        }
    }

    private func markDevicesUsed(_ attempts: [DeliveryAttempt]) async throws {
        var byDevice: [UUID: String] = [:]
        for attempt in attempts {
            guard case .sent(let corrected) = attempt.outcome else { continue }
            let environment = corrected?.rawValue ?? ""
            if byDevice[attempt.delivery.deviceID, default: ""].isEmpty {
                byDevice[attempt.delivery.deviceID] = environment
            }
        }
        guard !byDevice.isEmpty else { return }
        let ids = Array(byDevice.keys)
        var bindings = PostgresBindings()
        bindings.append(ids)
        bindings.append(ids.map { byDevice[$0]! })
        _ = try await client.query(Self.markUsedStatement, bindings)
    }

    /// The columns of a log row the engine writes, in the order it writes them.
    public static let logColumns = [
        "user_id", "device_token_id", "notification_id", "delivery_id", "notification_type", "status", "feedback_id",
        "project_id", "payload", "error_message", "apns_id", "environment", "attempt", "http_status", "apns_reason",
        "latency_ms",
    ]

    /// Deletes the deliveries that finish with these results, each found where the claim left it (a TID scan), and
    /// returns the ids it deleted. A row moved since (`VACUUM FULL`, say, or a rescue and a claim made since) is
    /// missing from the answer and goes to ``deleteStatement`` by id, where a claim made since, even by this worker,
    /// keeps it from being deleted by its raised attempt count.
    static let deleteInPlaceStatement = PostgresPreparedStatement(
        name: "herald_delivery_delete_in_place",
        sql: """
            DELETE FROM deliveries AS d
            USING unnest($1::uuid[], $3::int8[], $4::text[]::tid[]) AS r(id, claimed_attempts, location)
            WHERE \(isResultRow(locations: "$4")) AND \(heldByClaim(worker: "$2"))
            RETURNING d.id
            """)

    /// Deletes the deliveries that finish with these results, found by id (through the primary key).
    static let deleteStatement = PostgresPreparedStatement(
        name: "herald_delivery_delete",
        sql: """
            DELETE FROM deliveries AS d
            USING unnest($1::uuid[], $3::int8[]) AS r(id, claimed_attempts)
            WHERE \(isResultRow(locations: nil)) AND \(heldByClaim(worker: "$2"))
            """)

    /// Records deliveries still open (a retry, an attempt given back), each found where the claim left it, as
    /// ``deleteInPlaceStatement`` finds them, and returns the ids it recorded.
    static let recordInPlaceStatement = PostgresPreparedStatement(
        name: "herald_delivery_record_in_place",
        sql: """
            UPDATE deliveries AS d
            SET \(recordedColumns)
            FROM unnest(\(recordedResults), $10::text[]::tid[]) AS r(\(recordedResultNames), location)
            WHERE \(isResultRow(locations: "$10")) AND \(heldByClaim(worker: "$8"))
            RETURNING d.id
            """)

    /// Records open deliveries found by id (through the primary key).
    static let recordStatement = PostgresPreparedStatement(
        name: "herald_delivery_record",
        sql: """
            UPDATE deliveries AS d
            SET \(recordedColumns)
            FROM unnest(\(recordedResults)) AS r(\(recordedResultNames))
            WHERE \(isResultRow(locations: nil)) AND \(heldByClaim(worker: "$8"))
            """)

    /// That row `d` is the one the `unnest` row `r` is about: found where the claim left it, given `locations` (the
    /// parameter of the claimed rows' locations, as text), else by its id (parameter `$1`).
    ///
    /// The rows are also named through a sub-selected array, in a form that makes the planner read `deliveries` by
    /// them (a TID scan for locations, the primary key for ids) and join the result to `r`. Joined to `unnest` alone,
    /// the planner may scan the whole outbox instead and test each `sending` row against every result, a nested loop
    /// of outbox rows × results: the statistics of a table whose rows change state within seconds often say no row
    /// is `sending`, so such a scan looks like it finds one row. It found 2,000 and took 136 ms for 500 results in a
    /// 20,000-row outbox, where this form takes under 1 ms. The array comes through a sub-select, whose size the
    /// planner does not guess from the bound value, as in the claim. Once a session plans a statement generically, by
    /// location it looks each result's row up by TID as before; by id it may test the rows it found against every
    /// result, which the few rows moved since their claim make cheap.
    private static func isResultRow(locations: String?) -> String {
        guard let locations else { return "d.id = ANY (ARRAY(SELECT unnest($1::uuid[]))) AND d.id = r.id" }
        return
            "d.ctid = ANY (ARRAY(SELECT unnest(\(locations)::text[]::tid[]))) AND d.ctid = r.location AND d.id = r.id"
    }

    /// That row `d` is still held by the claim of `worker` (a parameter) that set its attempt count to
    /// `r.claimed_attempts`: a claim made since, even by the same worker, has raised the count.
    private static func heldByClaim(worker: String) -> String {
        "d.state = 'sending' AND d.claimed_by = \(worker) AND d.attempts = r.claimed_attempts"
    }

    /// The result columns the record statements take (parameters `$1`–`$7` and `$9`; `$8` is the worker), and their
    /// names in the `unnest` row `r`.
    private static let recordedResults =
        "$1::uuid[], $2::text[], $3::text[], $4::int8[], $5::timestamptz[], $6::int8[], $7::text[], $9::int8[]"
    private static let recordedResultNames =
        "id, state, environment, refund, next_attempt_at, status, reason, claimed_attempts"

    /// What recording an open delivery writes, from the `unnest` row `r`: leaving `sending` releases the claim.
    private static let recordedColumns = """
        state = r.state, environment = r.environment, attempts = d.attempts - r.refund::int4,
            next_attempt_at = r.next_attempt_at, last_status = NULLIF(r.status, 0)::int4,
            last_reason = NULLIF(r.reason, ''), claimed_by = NULL, lease_expires_at = NULL, updated_at = now()
        """

    /// Deactivates only when Apple's knowledge is newer than the last registration (checked again here,
    /// under the row lock, against a registration that raced the answer), and cancels the device's
    /// pending deliveries.
    static let deactivateStatement = PostgresPreparedStatement(
        name: "herald_delivery_deactivate",
        sql: """
            WITH locked AS (
                SELECT id FROM device_tokens WHERE id = ANY ($1::uuid[]) ORDER BY id FOR UPDATE
            ), deactivated AS (
                UPDATE device_tokens AS t
                SET is_active = FALSE, deactivated_at = now(), deactivation_reason = r.reason, updated_at = now()
                FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS r(id, reason, apple_at)
                WHERE t.id = r.id AND t.id IN (SELECT id FROM locked) AND t.is_active
                    AND t.registered_at < r.apple_at
                RETURNING t.id, t.user_id, t.deactivation_reason
            ),
            \(DeliveryCancellation.expressions(
                where: "x.device_token_id IN (SELECT id FROM deactivated)", reason: .deviceDeactivated))
            SELECT x.id, u.external_id, x.deactivation_reason FROM deactivated AS x JOIN users AS u ON u.id = x.user_id
            """)

    /// `last_used_at` is kept to the minute: a device written in the last minute is left alone, so a busy
    /// device is not rewritten by every batch. Environment corrections are always written. Skips devices
    /// another worker is updating right now: it is setting the same `last_used_at`.
    static let markUsedStatement = PostgresPreparedStatement(
        name: "herald_delivery_mark_used",
        sql: """
            WITH r AS (
                SELECT * FROM unnest($1::uuid[], $2::text[]) AS r(id, environment)
            ), locked AS (
                SELECT t.id FROM device_tokens AS t JOIN r ON r.id = t.id
                WHERE r.environment <> '' OR t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute'
                ORDER BY t.id
                FOR UPDATE OF t SKIP LOCKED
            )
            UPDATE device_tokens AS t
            SET last_used_at = now(),
                environment = CASE WHEN r.environment = '' THEN t.environment ELSE r.environment END,
                updated_at = CASE WHEN r.environment = '' THEN t.updated_at ELSE now() END
            FROM r
            WHERE t.id = r.id AND t.id IN (SELECT id FROM locked)
            """)
}
