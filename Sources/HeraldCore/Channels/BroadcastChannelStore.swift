public import APNsCore
public import Foundation
public import Postgres

/// The broadcast channels Herald made and the log of broadcasts to them, always within an ``AppScope``.
public struct BroadcastChannelStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let columns = """
        c.id, c.channel_id, (SELECT a.external_id FROM apps a WHERE a.id = c.app_id), c.environment,
        c.message_storage_policy::int8, c.created_at
        """

    static func decode(_ row: PostgresRow) throws -> BroadcastChannel {
        let (id, apnsID, app, environment, policy, created) = try row.decode(
            (UUID, String, String, String, Int, Date).self)
        return BroadcastChannel(
            id: id, apnsChannelID: ChannelID(apnsID)!, app: ExternalID(app)!,
            environment: PushEnvironment(rawValue: environment) ?? .sandbox,
            storagePolicy: MessageStoragePolicy(rawValue: policy) ?? .noStorage, createdAt: created)
    }

    func insert(_ id: ChannelID, app: ExternalID, environment: PushEnvironment, policy: MessageStoragePolicy)
        async throws -> BroadcastChannel
    {
        let rows = try await client.query(
            """
            INSERT INTO broadcast_channels AS c (channel_id, app_id, environment, message_storage_policy)
            SELECT \(id.rawValue), a.id, \(environment.rawValue), \(policy.rawValue)::smallint
            FROM apps a WHERE a.external_id = \(app.rawValue)
            RETURNING \(unescaped: Self.columns)
            """)
        return try Self.decode(rows[0])
    }

    /// Every channel in `scope`, newest first.
    public func list(in scope: AppScope) async throws -> [BroadcastChannel] {
        try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM broadcast_channels c
            WHERE \(scope.app?.rawValue)::text IS NULL
               OR c.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue))
            ORDER BY c.created_at DESC, c.channel_id
            """
        ).map(Self.decode)
    }

    /// The channel `id` if it is in `scope`.
    public func channel(_ id: UUID, in scope: AppScope) async throws -> BroadcastChannel? {
        try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM broadcast_channels c
            WHERE c.id = \(id)
              AND (\(scope.app?.rawValue)::text IS NULL
                   OR c.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            """
        ).first.map(Self.decode)
    }

    func delete(_ id: UUID) async throws {
        try await client.execute("DELETE FROM broadcast_channels WHERE id = \(id)")
    }

    func record(_ record: ChannelBroadcastRecord, app: ExternalID, apiKeyID: UUID?) async throws {
        try await client.execute(
            """
            INSERT INTO channel_broadcasts (
                id, channel_id, app_id, api_key_id, event, status, http_status, apns_reason, apns_unique_id,
                latency_ms, created_at)
            SELECT \(record.id), \(record.channel.rawValue), a.id, \(apiKeyID), \(record.event.rawValue),
                \(record.status), \(record.httpStatus), \(record.reason), \(record.uniqueID), \(record.latencyMs),
                \(record.createdAt)
            FROM apps a WHERE a.external_id = \(app.rawValue)
            """)
    }

    /// The latest broadcasts to channel `id`, newest first.
    public func broadcasts(to id: ChannelID, limit: Int) async throws -> [ChannelBroadcastRecord] {
        try await client.query(
            """
            SELECT id, event, status, http_status::int8, apns_reason, apns_unique_id, latency_ms, created_at
            FROM channel_broadcasts WHERE channel_id = \(id.rawValue)
            ORDER BY created_at DESC, id LIMIT \(limit)
            """
        ).map { row in
            let (recordID, event, status, http, reason, unique, latency, created) = try row.decode(
                (UUID, String, String, Int?, String?, String?, Double?, Date).self)
            return ChannelBroadcastRecord(
                id: recordID, channel: id, event: LiveActivityUpdate.Event(rawValue: event) ?? .update,
                status: status, httpStatus: http, reason: reason, uniqueID: unique, latencyMs: latency,
                createdAt: created)
        }
    }
}
