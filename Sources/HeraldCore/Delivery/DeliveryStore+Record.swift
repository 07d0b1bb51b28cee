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
                    finished, on: connection, inPlace: { DeleteInPlaceStatement($0, workerID: workerID) },
                    byID: { DeleteStatement($0, workerID: workerID) })
            }
            if !open.isEmpty {
                try await Self.write(
                    open, on: connection, inPlace: { RecordInPlaceStatement($0, workerID: workerID) },
                    byID: { RecordStatement($0, workerID: workerID) })
            }
            _ = try await connection.copy(try Self.logRows(attempts), into: "push_notification_logs")
        }
        let deactivated = try await deactivateDevices(attempts)
        try await markDevicesUsed(attempts)
        return deactivated
    }

    /// Runs the statement `inPlace` makes over `attempts`' claimed rows, then the one `byID` makes over those it did
    /// not find where the claim left them.
    private static func write<InPlace: PostgresStatement, ByID: PostgresStatement>(
        _ attempts: [DeliveryAttempt], on connection: PostgresConnection,
        inPlace: ([DeliveryAttempt]) -> InPlace, byID: ([DeliveryAttempt]) -> ByID
    ) async throws where InPlace.Row == UUID {
        let written = try await connection.query(inPlace(attempts))
        guard written.count < attempts.count else { return }
        let found = Set(written)
        try await connection.execute(byID(attempts.filter { !found.contains($0.delivery.id) }))
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
                row.append(attempt.uniqueID)
                row.append(attempt.appleTimestamp)
                row.append(delivery.deviceAppID)
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
        let statement = DeactivateStatement(
            devices: ids, reasons: ids.map { byDevice[$0]!.reason },
            appleTimestamps: ids.map { byDevice[$0]!.appleTimestamp })
        return try await client.query(statement).compactMap { $0 }
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
        try await client.execute(MarkUsedStatement(devices: ids, environments: ids.map { byDevice[$0]! }))
    }

    /// The columns of a log row the engine writes, in the order it writes them.
    public static let logColumns = [
        "user_id", "device_token_id", "notification_id", "delivery_id", "notification_type", "status", "feedback_id",
        "project_id", "payload", "error_message", "apns_id", "environment", "attempt", "http_status", "apns_reason",
        "latency_ms", "apns_unique_id", "apns_timestamp", "app_id",
    ]
}
