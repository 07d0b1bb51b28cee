public import APNsCore
public import Foundation
public import Postgres

/// Live Activity tokens as the app reports them: a device's push-to-start token per attributes type, and the
/// update token of each running activity. They are kept beside the device's token (same user, app, environment and
/// topic), reached through the outbox like it, deactivated like it when Apple calls them dead, and never returned.
///
/// A device keeps at most ``RegistrationLimits/activityTokensPerDevice`` active tokens of each kind (see
/// `LiveActivityTokenStore+Limit.swift`).
public struct LiveActivityTokenStore: Sendable {
    let client: PostgresClient
    let limits: RegistrationLimits

    public init(client: PostgresClient, limits: RegistrationLimits = RegistrationLimits()) {
        self.client = client
        self.limits = limits
    }

    /// Records `token` as the device's push-to-start token for `attributesType`, replacing the one before.
    /// - Returns: whether there was none before; `nil` when `user` has no active device `device` in `scope`.
    /// - Throws: ``DomainError`` `.conflict` (field `token`) when the token is registered as another token.
    public func registerPushToStart(
        _ token: DeviceToken, attributesType: ActivityAttributesType, device: UUID, of user: ExternalID,
        in scope: AppScope
    ) async throws -> Bool? {
        try await upsert(
            """
            INSERT INTO device_tokens AS d (
                user_id, token, platform, environment, topic, app_id, kind, parent_device_id, attributes_type)
            SELECT p.user_id, \(token.hex), p.platform, p.environment, p.topic, p.app_id, 'push_to_start', p.id,
                \(attributesType.rawValue)
            FROM device_tokens p JOIN users u ON u.id = p.user_id
            WHERE p.id = \(device) AND p.kind = 'device' AND p.is_active AND u.external_id = \(user.rawValue)
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR p.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            ON CONFLICT (parent_device_id, attributes_type) WHERE kind = 'push_to_start' DO UPDATE
            SET token = EXCLUDED.token, environment = EXCLUDED.environment, topic = EXCLUDED.topic,
                app_id = EXCLUDED.app_id, is_active = TRUE, deactivated_at = NULL, deactivation_reason = NULL,
                registered_at = now(), updated_at = now()
            RETURNING (xmax = 0) AS inserted
            """, kind: .pushToStart, of: device)
    }

    /// Records `token` as the update token of `activity` running on `device`, replacing the one before (ActivityKit
    /// rotates it).
    /// - Returns: whether the activity is new; `nil` when `user` has no active device `device` in `scope`.
    /// - Throws: ``DomainError`` `.conflict` (field `token`) when the token is registered as another token.
    public func reportActivity(
        _ activity: ExternalID, token: DeviceToken, attributesType: ActivityAttributesType, device: UUID,
        of user: ExternalID, in scope: AppScope
    ) async throws -> Bool? {
        try await upsert(
            """
            INSERT INTO device_tokens AS d (
                user_id, token, platform, environment, topic, app_id, kind, parent_device_id, attributes_type,
                activity_id)
            SELECT p.user_id, \(token.hex), p.platform, p.environment, p.topic, p.app_id, 'activity', p.id,
                \(attributesType.rawValue), \(activity.rawValue)
            FROM device_tokens p JOIN users u ON u.id = p.user_id
            WHERE p.id = \(device) AND p.kind = 'device' AND p.is_active AND u.external_id = \(user.rawValue)
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR p.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            ON CONFLICT (activity_id, parent_device_id) WHERE kind = 'activity' DO UPDATE
            SET token = EXCLUDED.token, attributes_type = EXCLUDED.attributes_type, is_active = TRUE,
                deactivated_at = NULL, deactivation_reason = NULL, registered_at = now(), updated_at = now()
            RETURNING (xmax = 0) AS inserted
            """, kind: .activity, of: device)
    }

    /// Deactivates the tokens of `activity` on `user`'s devices in `scope` (reason `activity_ended`) and cancels
    /// what is still waiting for them. - Returns: whether `user` has that activity.
    public func endActivity(_ activity: ExternalID, of user: ExternalID, in scope: AppScope) async throws -> Bool {
        try await client.query(
            """
            WITH target AS (
                SELECT d.id, d.is_active FROM device_tokens d JOIN users u ON u.id = d.user_id
                WHERE d.kind = 'activity' AND d.activity_id = \(activity.rawValue)
                  AND u.external_id = \(user.rawValue)
                  AND (\(scope.app?.rawValue)::text IS NULL
                      OR d.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            ),
            ended AS (
                UPDATE device_tokens d
                SET is_active = FALSE, deactivated_at = now(), deactivation_reason = 'activity_ended',
                    updated_at = now()
                FROM target t WHERE d.id = t.id AND t.is_active
            ),
            \(unescaped: DeliveryCancellation.ofTargetDevices)
            SELECT count(*) FROM target
            """
        ).scalar(Int.self) > 0
    }

    /// The app that owns `activity`, for sends to it: nil when no active token of it is in `scope`.
    public func app(of activity: ExternalID, in scope: AppScope) async throws -> (found: Bool, app: ExternalID?) {
        let rows = try await client.query(
            """
            SELECT (SELECT a.external_id FROM apps a WHERE a.id = d.app_id) FROM device_tokens d
            WHERE d.kind = 'activity' AND d.activity_id = \(activity.rawValue) AND d.is_active
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR d.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            LIMIT 1
            """)
        guard let row = rows.first else { return (false, nil) }
        return (true, try row.decode(column: 0, as: String?.self).flatMap(ExternalID.init))
    }

    private func upsert(_ query: PostgresQuery, kind: LimitedTokenKind, of device: UUID) async throws -> Bool? {
        do {
            return try await withinLimit(kind, of: device) { connection in
                try await connection.query(query).first?.decode(column: 0, as: Bool.self)
            }
        } catch let error as PostgresError where error.isServerError(.uniqueViolation) {
            throw DomainError.conflict("this token is registered already as another token", field: "token")
        }
    }
}
