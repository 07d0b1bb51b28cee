public import Foundation
public import Postgres

/// A delivering process's heartbeat (`delivery_workers`, Migrations/0044): written every few seconds while it runs,
/// deleted when it stops.
public struct DeliveryWorkerStore: Sendable {
    /// One beat: who, and what the process holds now.
    public struct Beat: Sendable, Hashable {
        public var worker: String
        public var host: String
        public var startedAt: Date
        public var inFlight: Int
        public var pausedUntil: Date?
        public var pauseReason: String?
        public var consecutivePauses: Int

        public init(
            worker: String, host: String, startedAt: Date, inFlight: Int, pausedUntil: Date?, pauseReason: String?,
            consecutivePauses: Int
        ) {
            self.worker = worker
            self.host = host
            self.startedAt = startedAt
            self.inFlight = inFlight
            self.pausedUntil = pausedUntil
            self.pauseReason = pauseReason
            self.consecutivePauses = consecutivePauses
        }
    }

    /// Rows of processes that stopped without deleting theirs go after this long.
    public static let forgetAfter: Duration = .seconds(86_400)

    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Writes `beat` as the process's row, and deletes the rows of processes silent for ``forgetAfter``.
    public func record(_ beat: Beat) async throws {
        try await client.execute(
            """
            WITH gone AS (
                DELETE FROM delivery_workers
                WHERE last_seen_at < now() - \(Self.forgetAfter.components.seconds) * interval '1 second'
            )
            INSERT INTO delivery_workers AS w (
                worker, host, started_at, last_seen_at, in_flight, paused_until, pause_reason, consecutive_pauses)
            VALUES (\(beat.worker), \(beat.host), \(beat.startedAt), now(), \(beat.inFlight), \(beat.pausedUntil),
                \(beat.pauseReason), \(beat.consecutivePauses))
            ON CONFLICT (worker) DO UPDATE SET last_seen_at = now(), in_flight = EXCLUDED.in_flight,
                paused_until = EXCLUDED.paused_until, pause_reason = EXCLUDED.pause_reason,
                consecutive_pauses = EXCLUDED.consecutive_pauses
            """)
    }

    /// Deletes the process's row: it stopped.
    public func remove(_ worker: String) async throws {
        try await client.execute("DELETE FROM delivery_workers WHERE worker = \(worker)")
    }
}
