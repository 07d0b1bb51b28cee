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
    /// rotates it). The first report of an id binds it to the device's app and user (``ActivityReport``); the same
    /// user reports it again from any of their devices of that app.
    ///
    /// One statement: the binding is inserted, or its row locked and checked, before the token is written, so two
    /// users reporting a new id at once cannot both own it (the second waits for the first and is refused).
    /// - Returns: what became of the report.
    /// - Throws: ``DomainError`` `.conflict` (field `token`) when the token is registered as another token.
    public func reportActivity(
        _ activity: ExternalID, token: DeviceToken, attributesType: ActivityAttributesType, device: UUID,
        of user: ExternalID, in scope: AppScope
    ) async throws -> ActivityReport {
        let rows: PostgresRows
        do {
            rows = try await withinLimit(.activity, of: device) { connection in
                try await connection.query(
                    """
                    WITH p AS (
                        SELECT p.id, p.user_id, p.platform, p.environment, p.topic, p.app_id
                        FROM device_tokens p JOIN users u ON u.id = p.user_id
                        WHERE p.id = \(device) AND p.kind = 'device' AND p.is_active AND u.external_id = \(user.rawValue)
                          AND (\(scope.app?.rawValue)::text IS NULL
                              OR p.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
                    ),
                    owner AS (
                        INSERT INTO live_activities AS o (activity_id, app_id, user_id)
                        SELECT \(activity.rawValue), p.app_id, p.user_id FROM p
                        ON CONFLICT (activity_id) DO UPDATE SET reported_at = now()
                        WHERE o.user_id = EXCLUDED.user_id AND o.app_id IS NOT DISTINCT FROM EXCLUDED.app_id
                        RETURNING o.activity_id
                    ),
                    t AS (
                        INSERT INTO device_tokens AS d (
                            user_id, token, platform, environment, topic, app_id, kind, parent_device_id,
                            attributes_type, activity_id)
                        SELECT p.user_id, \(token.hex), p.platform, p.environment, p.topic, p.app_id, 'activity', p.id,
                            \(attributesType.rawValue), owner.activity_id
                        FROM p CROSS JOIN owner
                        ON CONFLICT (activity_id, parent_device_id) WHERE kind = 'activity' DO UPDATE
                        SET token = EXCLUDED.token, attributes_type = EXCLUDED.attributes_type, is_active = TRUE,
                            deactivated_at = NULL, deactivation_reason = NULL, registered_at = now(), updated_at = now()
                        RETURNING (xmax = 0) AS inserted
                    )
                    SELECT EXISTS (SELECT 1 FROM p), EXISTS (SELECT 1 FROM owner), (SELECT inserted FROM t)
                    """)
            }
        } catch let error as PostgresError where error.isServerError(.uniqueViolation) {
            throw Self.tokenTaken
        }
        let (found, owned, inserted) = try rows[0].decode((Bool, Bool, Bool?).self)
        guard found else { return .noDevice }
        guard owned, let inserted else { return .ownedByAnother }
        return inserted ? .started : .updated
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

    /// The app that owns `activity`, for sends to it: not found when it has no active token or its app is outside
    /// `scope`.
    public func app(of activity: ExternalID, in scope: AppScope) async throws -> (found: Bool, app: ExternalID?) {
        let rows = try await client.query(
            """
            SELECT (SELECT a.external_id FROM apps a WHERE a.id = o.app_id) FROM live_activities o
            WHERE o.activity_id = \(activity.rawValue)
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR o.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
              AND EXISTS (
                  SELECT 1 FROM device_tokens d
                  WHERE d.kind = 'activity' AND d.activity_id = o.activity_id AND d.user_id = o.user_id
                    AND d.is_active)
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
            throw Self.tokenTaken
        }
    }

    private static let tokenTaken = DomainError.conflict(
        "this token is registered already as another token", field: "token")
}
