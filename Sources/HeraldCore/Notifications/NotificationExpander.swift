public import Foundation
public import Postgres

/// Turns due notifications into deliveries: one SQL statement per notification resolves the recipients, their
/// preferences and their active devices, inserts one delivery per device and one suppression per silenced
/// recipient, and marks the notification expanded.
public struct NotificationExpander: Sendable {
    /// What one expansion did.
    public struct Expansion: Sendable, Equatable {
        public var notificationID: UUID
        public var deliveries: Int
        public var suppressions: Int
        /// The trace of the request that accepted the notification, when tracing was on.
        public var trace: TraceCarrier? = nil
    }

    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Expands every notification that is due now, oldest first. Safe to run in many processes at once: each
    /// notification is locked with `SKIP LOCKED`, and a crash rolls its whole expansion back.
    /// - Returns: what was expanded.
    @discardableResult
    public func expandDue() async throws -> [Expansion] {
        var done: [Expansion] = []
        while let expansion = try await expandNext() { done.append(expansion) }
        return done
    }

    /// When the next scheduled notification falls due, if any.
    public func nextDue() async throws -> Date? {
        try await client.query("SELECT min(send_at) FROM notifications WHERE state = 'scheduled'").scalar(Date?.self)
    }

    /// Expands the oldest due notification, if there is one.
    public func expandNext() async throws -> Expansion? {
        try await client.query(ExpandNextStatement()).first
    }
}
