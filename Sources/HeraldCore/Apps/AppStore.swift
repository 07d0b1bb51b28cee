import Foundation
public import Postgres

/// The apps Herald serves (`apps`), keyed by the backend's ids.
public struct AppStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let columns =
        "a.id, a.external_id, a.name, a.bundle_id, a.team_id, a.default_environment, a.is_default, "
        + "a.delivery_weight, a.created_at, a.updated_at"

    static func decode(_ row: PostgresRow) throws -> App {
        let (id, external, name, bundleID, teamID, environment, isDefault, weight, created, updated) = try row.decode(
            (UUID, String, String, String, String, String, Bool, Int32, Date, Date).self)
        return App(
            id: id, externalID: ExternalID(external)!, name: name, bundleID: bundleID, teamID: teamID,
            defaultEnvironment: PushEnvironment(rawValue: environment) ?? .sandbox, isDefault: isDefault,
            deliveryWeight: Int(weight), createdAt: created, updatedAt: updated)
    }

    /// Creates or updates an app. - Returns: the app and whether it was created.
    /// - Throws: ``DomainError`` `.conflict` (field `bundleId`) when another app has the bundle id.
    public func put(_ id: ExternalID, _ definition: AppDefinition) async throws -> (app: App, created: Bool) {
        do {
            let rows = try await client.query(
                """
                INSERT INTO apps AS a (external_id, name, bundle_id, team_id, default_environment, delivery_weight)
                VALUES (\(id.rawValue), \(definition.name), \(definition.bundleID), \(definition.teamID),
                    \(definition.defaultEnvironment.rawValue), \(definition.deliveryWeight))
                ON CONFLICT (external_id) DO UPDATE
                SET name = EXCLUDED.name, bundle_id = EXCLUDED.bundle_id, team_id = EXCLUDED.team_id,
                    default_environment = EXCLUDED.default_environment, delivery_weight = EXCLUDED.delivery_weight,
                    updated_at = now()
                RETURNING \(unescaped: Self.columns), (xmax = 0) AS inserted
                """)
            try await client.announceSigningChange()
            return (try Self.decode(rows[0]), try rows[0].decode("inserted", as: Bool.self))
        } catch let error as PostgresError where error.isServerError(.uniqueViolation) {
            throw DomainError.conflict("another app has this bundle id", field: "bundleId")
        }
    }

    /// The app with the backend id `id`, or `nil`.
    public func app(_ id: ExternalID) async throws -> App? {
        try await client.query("SELECT \(unescaped: Self.columns) FROM apps a WHERE a.external_id = \(id.rawValue)")
            .first.map(Self.decode)
    }

    /// Every app, by id.
    public func list() async throws -> [App] {
        try await client.query("SELECT \(unescaped: Self.columns) FROM apps a ORDER BY a.external_id").map(
            Self.decode)
    }

    /// Deletes an app with its devices. - Returns: whether it existed.
    /// - Throws: ``DomainError`` `.conflict` for the default app, which the start-up settings define.
    public func delete(_ id: ExternalID) async throws -> Bool {
        let rows = try await client.query(
            """
            WITH target AS (SELECT id, is_default FROM apps WHERE external_id = \(id.rawValue)),
            gone AS (DELETE FROM apps WHERE id IN (SELECT id FROM target WHERE NOT is_default) RETURNING id)
            SELECT (SELECT is_default FROM target), (SELECT count(*) FROM gone)
            """)
        let (isDefault, deleted) = try rows[0].decode((Bool?, Int).self)
        if isDefault == true {
            throw DomainError.conflict(
                "the default app comes from APNS_BUNDLE_ID and cannot be deleted", field: "appId")
        }
        if deleted > 0 { try await client.announceSigningChange() }
        return deleted > 0
    }

    /// Makes the single-app settings (`APNS_BUNDLE_ID`, `APNS_TEAM_ID`, `APNS_PRODUCTION`) the default app: the app
    /// with that bundle id, else the existing default app, else a new app `default`. Devices registered before apps
    /// existed join it, with the Live Activity ids and votes recorded while there was none. Idempotent; every
    /// start-up runs it.
    public func defineDefault(bundleID: String, teamID: String, environment: PushEnvironment) async throws -> App {
        let definition = try AppDefinition(
            name: bundleID, bundleID: bundleID, teamID: teamID, defaultEnvironment: environment)
        return try await client.withTransaction { connection in
            // One start-up at a time: replicas starting together define the default once.
            try await connection.execute("SELECT pg_advisory_xact_lock(hashtext('herald.default-app'))")
            // The app with this bundle id, else the current default (whose bundle id changed).
            let chosen = try await connection.query(
                """
                SELECT id FROM apps WHERE bundle_id = \(definition.bundleID) OR is_default
                ORDER BY (bundle_id = \(definition.bundleID)) DESC LIMIT 1
                """
            ).first.map { try $0.decode(column: 0, as: UUID.self) }
            let appID: UUID
            if let chosen {
                appID = chosen
                try await connection.execute("UPDATE apps SET is_default = false WHERE is_default AND id <> \(appID)")
                try await connection.execute(
                    """
                    UPDATE apps SET is_default = true, bundle_id = \(definition.bundleID),
                        team_id = \(definition.teamID), default_environment = \(environment.rawValue),
                        updated_at = now()
                    WHERE id = \(appID)
                    """)
            } else {
                appID = try await connection.query(
                    """
                    INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment, is_default)
                    VALUES ('default', \(definition.name), \(definition.bundleID), \(definition.teamID),
                        \(environment.rawValue), true)
                    RETURNING id
                    """
                ).scalar(UUID.self)
            }
            try await connection.execute("UPDATE device_tokens SET app_id = \(appID) WHERE app_id IS NULL")
            try await connection.execute("UPDATE live_activities SET app_id = \(appID) WHERE app_id IS NULL")
            try await connection.execute("UPDATE feedback_votes SET app_id = \(appID) WHERE app_id IS NULL")
            let app = try await connection.query(
                "SELECT \(unescaped: Self.columns) FROM apps a WHERE a.id = \(appID)")
            return try Self.decode(app[0])
        }
    }
}
