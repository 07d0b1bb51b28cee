public import APNsCore
public import Foundation
public import Postgres

/// A device's service tokens (``ServiceTokenKind``) as the app reports them, one per kind: kept beside the device's
/// token (its user, app, environment and topic), reached through the outbox like it, deactivated alone when Apple
/// calls them dead, removed with the device, moved with it to another user, and never returned.
public struct ServiceTokenStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// Records `token` as `device`'s token of `kind`, replacing the one before.
    /// - Returns: whether the device had no token of that kind before; `nil` when `user` has no active device
    ///   `device` in `scope`.
    /// - Throws: ``DomainError`` `.conflict` (field `token`) when the token is registered as another token.
    public func register(
        _ token: DeviceToken, kind: ServiceTokenKind, device: UUID, of user: ExternalID, in scope: AppScope
    ) async throws -> Bool? {
        do {
            return try await client.query(
                """
                INSERT INTO device_tokens AS d (
                    user_id, token, platform, environment, topic, app_id, kind, parent_device_id)
                SELECT p.user_id, \(token.hex), p.platform, p.environment, p.topic, p.app_id, \(kind.rawValue), p.id
                FROM device_tokens p JOIN users u ON u.id = p.user_id
                WHERE p.id = \(device) AND p.kind = 'device' AND p.is_active AND u.external_id = \(user.rawValue)
                  AND (\(scope.app?.rawValue)::text IS NULL
                      OR p.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
                ON CONFLICT (parent_device_id, kind) WHERE kind IN (\(unescaped: ServiceTokenKind.sqlList))
                DO UPDATE
                SET token = EXCLUDED.token, user_id = EXCLUDED.user_id, environment = EXCLUDED.environment,
                    topic = EXCLUDED.topic, app_id = EXCLUDED.app_id, is_active = TRUE, deactivated_at = NULL,
                    deactivation_reason = NULL, registered_at = now(), updated_at = now()
                RETURNING (xmax = 0) AS inserted
                """
            ).first?.decode(column: 0, as: Bool.self)
        } catch let error as PostgresError where error.isServerError(.uniqueViolation) {
            throw DomainError.conflict("this token is registered already as another token", field: "token")
        }
    }

    /// Deactivates `device`'s token of `kind` (reason `removed_by_user`) and cancels its pending deliveries; done
    /// already when the device has none.
    /// - Returns: whether `user` has a device with this id in `scope`.
    public func remove(kind: ServiceTokenKind, device: UUID, of user: ExternalID, in scope: AppScope) async throws
        -> Bool
    {
        try await DeviceStore(client: client).remove(device, of: user, in: scope, onlyKind: kind)
    }
}
