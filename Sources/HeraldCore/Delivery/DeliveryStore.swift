import Foundation
public import Postgres

/// The outbox's SQL: claiming due deliveries, rescuing expired leases and measuring the queue. Every
/// statement is prepared. The claim reads the due-deliveries index by lane and app (migration 0038), the rescuer the
/// open-deliveries index (migrations 0013–0016); both are partial on `finished_at` alone, which a claim leaves as it
/// is, so a claim stays a HOT update. The locking follows the plan written down in migration 0009.
public struct DeliveryStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Claims up to `limit` due pending (or deferred) deliveries for `workerID` with a lease of `lease`, shared between
    /// lanes and apps as ``ClaimShares`` plans it from the due work (one round trip), and returns them with their
    /// device and user (a second) and their notifications (a third). With a `lane`, only that lane's; the first
    /// `leavingImmediate` due immediate deliveries are left to the immediate lane's own claims.
    public func claim(
        limit: Int, workerID: String, lease: Duration, lane: DeliveryLane? = nil, leavingImmediate: Int = 0
    ) async throws -> [ClaimedDelivery] {
        let due = try await client.query(DueGroupsStatement(cap: limit)).filter { lane == nil || $0.group.lane == lane }
        let plan = ClaimShares.plan(capacity: limit, due: due, leavingImmediate: leavingImmediate)
        guard !plan.isEmpty else { return [] }
        var claimed = try await client.query(
            ClaimStatement(plan: plan, workerID: workerID, leaseSeconds: lease.seconds))
        guard !claimed.isEmpty else { return [] }
        let notifications = try await client.query(
            NotificationsStatement(ids: Array(Set(claimed.map(\.notificationID)))))
        let byID = Dictionary(notifications.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for index in claimed.indices {
            if let notification = byID[claimed[index].notificationID] { claimed[index].notification = notification }
        }
        return claimed
    }

    /// The stored content as a message, or why it is not one (the decoder names the key).
    static func message(_ stored: PostgresJSON) -> Result<NotificationMessage, UnreadableContent> {
        do {
            return .success(try stored.decode(NotificationMessage.self))
        } catch {
            return .failure(
                UnreadableContent(description: "the stored content is not a notification message: \(error)"))
        }
    }

    /// Returns up to `limit` deliveries whose lease ran out (their worker died) to `pending`.
    /// - Returns: How many were rescued.
    public func rescueExpiredLeases(limit: Int) async throws -> Int {
        try await client.execute(RescueStatement(limit: limit))
    }

    /// Pending and deferred deliveries that are due now: the outbox depth.
    public func outboxDepth() async throws -> Int {
        guard let depth = try await client.query(DepthStatement()).first else {
            throw PostgresError(kind: .decoding, message: "expected one row, got none")
        }
        return depth
    }
}
