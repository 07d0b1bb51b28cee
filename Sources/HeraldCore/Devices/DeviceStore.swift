public import APNsCore
public import Foundation
public import Postgres

/// Devices of users: registration, listing and removal, always on behalf of the device's user.
///
/// A user keeps at most ``RegistrationLimits/devicesPerUser`` active devices per app: each registration deactivates
/// the least recently registered beyond it, in its own transaction, under a lock per user, so concurrent
/// registrations cannot pass the limit together.
public struct DeviceStore: Sendable {
    let client: PostgresClient
    let limits: RegistrationLimits

    public init(client: PostgresClient, limits: RegistrationLimits = RegistrationLimits()) {
        self.client = client
        self.limits = limits
    }

    /// A device's columns, `d` being its `device_tokens` row.
    enum Column: String, PostgresColumn {
        case id = "d.id"
        case platform = "d.platform"
        case environment = "d.environment"
        case topic = "d.topic"
        case appVersion = "d.app_version"
        case osVersion = "d.os_version"
        case isActive = "d.is_active"
        case deactivationReason = "d.deactivation_reason"
        case createdAt = "d.created_at"
        case registeredAt = "d.registered_at"
        case lastUsedAt = "d.last_used_at"
        case app = "(SELECT a.external_id FROM apps a WHERE a.id = d.app_id)"
        case pushTokenKinds = """
            ARRAY(SELECT k.kind FROM device_tokens k
                WHERE k.parent_device_id = d.id AND k.is_active
                  AND k.kind IN ('voip', 'complication', 'fileprovider', 'location', 'pushtotalk', 'widgets', 'controls')
                ORDER BY k.kind)
            """
    }

    static func decode(_ row: PostgresRow) throws -> Device {
        Device(
            id: try row.decode(Column.id, as: UUID.self),
            platform: DevicePlatform(rawValue: try row.decode(Column.platform, as: String.self)) ?? .iOS,
            environment: PushEnvironment(rawValue: try row.decode(Column.environment, as: String.self)) ?? .production,
            topic: try row.decode(Column.topic, as: String?.self),
            appID: try row.decode(Column.app, as: String?.self).flatMap(ExternalID.init),
            appVersion: try row.decode(Column.appVersion, as: String?.self),
            osVersion: try row.decode(Column.osVersion, as: String?.self),
            isActive: try row.decode(Column.isActive, as: Bool.self),
            deactivationReason: try row.decode(Column.deactivationReason, as: String?.self)
                .flatMap(DeactivationReason.init(rawValue:)),
            createdAt: try row.decode(Column.createdAt, as: Date.self),
            registeredAt: try row.decode(Column.registeredAt, as: Date.self),
            lastUsedAt: try row.decode(Column.lastUsedAt, as: Date?.self),
            pushTokenKinds: try row.decode(Column.pushTokenKinds, as: [String].self)
                .compactMap(ServiceTokenKind.init(rawValue:)))
    }

    /// Registers a token for `user` with one upsert. A token already known moves to `user` and is reactivated.
    /// Devices of `user` beyond the limit are deactivated in the same transaction.
    /// - Returns: the device and whether the token was new.
    /// - Throws: ``DomainError`` `.notFound` when `user` is unknown.
    public func register(_ registration: DeviceRegistration, for user: ExternalID) async throws -> (
        device: Device, created: Bool
    ) {
        let statement = RegisterStatement(registration: registration, user: user)
        let limit = limits.devicesPerUser
        return try await client.withTransaction { connection in
            try await connection.execute(Self.lockRegistrations(of: [user.rawValue]))
            guard let registered = try await connection.query(statement).first else {
                throw DomainError.notFound("no user has this id", field: "userId")
            }
            try await connection.execute(Self.releaseMovedDevices(tokens: [registration.token.hex]))
            try await connection.execute(Self.trimDevices(of: [user.rawValue], to: limit))
            return registered
        }
    }

    /// Registers several tokens with one upsert and one commit: what ``RegistrationBatcher`` sends under load.
    /// The tokens must be distinct. Devices beyond the limit are deactivated in the same transaction; registrations
    /// of one batch count as equally recent.
    /// - Returns: each registered device and whether it was new, by token; tokens of unknown users are absent.
    func register(batch: [(registration: DeviceRegistration, user: ExternalID)]) async throws -> [String: (
        device: Device, created: Bool
    )] {
        let users = batch.map(\.user.rawValue)
        let limit = limits.devicesPerUser
        return try await client.withTransaction { connection in
            try await connection.execute(Self.lockRegistrations(of: users))
            let registered = try await Self.register(batch: batch, on: connection)
            try await connection.execute(Self.releaseMovedDevices(tokens: batch.map(\.registration.token.hex)))
            try await connection.execute(Self.trimDevices(of: users, to: limit))
            return registered
        }
    }

    private static func register(
        batch: [(registration: DeviceRegistration, user: ExternalID)], on connection: PostgresConnection
    ) async throws -> [String: (device: Device, created: Bool)] {
        // Optional text travels as "" (no valid value is empty) because the arrays are text[] of non-null elements.
        let rows = try await connection.query(
            """
            INSERT INTO device_tokens AS d (
                user_id, token, platform, environment, topic, app_version, os_version, app_id)
            SELECT u.id, i.token, i.platform, i.environment, nullif(i.topic, ''), nullif(i.app_version, ''),
                   nullif(i.os_version, ''),
                   COALESCE((SELECT a.id FROM apps a WHERE a.external_id = i.app),
                       (SELECT a.id FROM apps a WHERE a.bundle_id = i.topic),
                       (SELECT a.id FROM apps a WHERE a.is_default))
            FROM unnest(\(batch.map(\.user.rawValue)), \(batch.map(\.registration.token.hex)),
                        \(batch.map(\.registration.platform.rawValue)),
                        \(batch.map(\.registration.environment.rawValue)),
                        \(batch.map { $0.registration.topic ?? "" }), \(batch.map { $0.registration.appVersion ?? "" }),
                        \(batch.map { $0.registration.osVersion ?? "" }),
                        \(batch.map { $0.registration.app?.rawValue ?? "" }))
                AS i (user_external_id, token, platform, environment, topic, app_version, os_version, app)
            JOIN users u ON u.external_id = i.user_external_id
            \(unescaped: Self.reregistration)
            RETURNING \(unescaped: Column.selectList), (xmax = 0) AS inserted, d.token
            """)
        var result: [String: (device: Device, created: Bool)] = [:]
        for row in rows {
            result[try row.decode("token", as: String.self)] = (
                try decode(row), try row.decode("inserted", as: Bool.self)
            )
        }
        return result
    }

    /// Every device of `user` in `scope`, active or not, newest registration first.
    public func devices(of user: ExternalID, in scope: AppScope) async throws -> [Device] {
        try await client.query(
            """
            SELECT \(unescaped: Column.selectList) FROM device_tokens d JOIN users u ON u.id = d.user_id
            WHERE u.external_id = \(user.rawValue) AND d.kind = 'device'
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR d.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            ORDER BY d.registered_at DESC, d.id
            """
        ).map(Self.decode)
    }

    /// Deactivates `user`'s device (reason `removed_by_user`) with its Live Activity and service tokens, or, given
    /// `kind`, only its active service token of that kind, and cancels their pending deliveries; the rows stay, and
    /// each canceled delivery's log row keeps them in the history.
    /// - Returns: whether `user` has a device with this id in `scope`; another user's device, or one of an app
    ///   outside `scope`, is reported as absent.
    public func remove(_ device: UUID, of user: ExternalID, in scope: AppScope, onlyKind kind: ServiceTokenKind? = nil)
        async throws -> Bool
    {
        try await remove(.id(device), of: user, in: scope, onlyKind: kind)
    }

    /// ``remove(_:of:in:onlyKind:)`` for the device registered with `token`, as an app that knows only its token
    /// unregisters (seed §8.2).
    /// - Returns: whether `user` has a device with this token in `scope`.
    public func remove(token: DeviceToken, of user: ExternalID, in scope: AppScope) async throws -> Bool {
        try await remove(.token(token), of: user, in: scope, onlyKind: nil)
    }

    /// How a removal names its device.
    private enum DeviceMatch {
        case id(UUID)
        case token(DeviceToken)
    }

    private func remove(_ match: DeviceMatch, of user: ExternalID, in scope: AppScope, onlyKind kind: ServiceTokenKind?)
        async throws -> Bool
    {
        // The column, its SQL type and the value as text: both columns are unique, so either finds one row.
        let (column, type, value): (String, String, String) =
            switch match {
            case .id(let id): ("id", "uuid", id.uuidString)
            case .token(let token): ("token", "text", token.hex)
            }
        return try await client.query(
            """
            WITH device AS (
                SELECT d.id FROM device_tokens d JOIN users u ON u.id = d.user_id
                WHERE d.\(unescaped: column) = \(value)::\(unescaped: type)
                  AND d.kind = 'device' AND u.external_id = \(user.rawValue)
                  AND (\(scope.app?.rawValue)::text IS NULL
                      OR d.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            ),
            target AS (
                SELECT d.id, d.is_active FROM device_tokens d
                WHERE (\(kind?.rawValue)::text IS NULL
                       AND (d.id IN (SELECT id FROM device) OR d.parent_device_id IN (SELECT id FROM device)))
                   OR (d.parent_device_id IN (SELECT id FROM device) AND d.kind = \(kind?.rawValue) AND d.is_active)
            ),
            deactivated AS (
                UPDATE device_tokens d
                SET is_active = FALSE, deactivated_at = now(), deactivation_reason = 'removed_by_user',
                    updated_at = now()
                FROM target t WHERE d.id = t.id AND t.is_active
            ),
            \(unescaped: DeliveryCancellation.ofTargetDevices)
            SELECT count(*) FROM device
            """
        ).scalar(Int.self) > 0
    }
}
