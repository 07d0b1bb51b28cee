import Foundation
public import Postgres

/// Records what people did with their pushes (`push_interactions`, Migrations/0043) and lists them in order.
public struct InteractionStore: Sendable {
    /// How ``record(_:)`` went.
    public enum Recording: Sendable, Hashable {
        /// Recorded now.
        case recorded(Interaction)
        /// The same action on the same delivery was recorded before; nothing changed.
        case repeated(Interaction)
        /// The notification was never sent to this device of the caller (or the device is not theirs).
        case notDelivered
        /// The device already reported ``maximumPerDelivery`` different actions for the notification.
        case tooMany
    }

    /// Different actions one device may report for one notification: a category has a handful, so this bounds what
    /// a misbehaving app can write without limiting a real one.
    public static let maximumPerDelivery = 16
    /// The most one listing returns.
    public static let maximumLimit = 500

    let client: PostgresClient
    /// Told about each interaction recorded, for the outcome webhook; nil when none is configured.
    let events: (any DeliveryEventSink)?

    public init(client: PostgresClient, events: (any DeliveryEventSink)? = nil) {
        self.client = client
        self.events = events
    }

    /// Records `report` once per (notification, device, action), if the notification was sent to that device and
    /// the device is the reporting user's, in their app scope.
    public func record(_ report: InteractionReport) async throws -> Recording {
        let row = try await client.query(
            """
            WITH device AS (
                SELECT d.id, d.user_id, d.app_id FROM device_tokens d JOIN users u ON u.id = d.user_id
                WHERE d.id = \(report.device) AND d.kind = 'device' AND u.external_id = \(report.user.rawValue)
                  AND (\(report.scope.app?.rawValue)::text IS NULL
                      OR d.app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(report.scope.app?.rawValue)))
            ),
            sent AS (
                SELECT device.id AS device_id, device.user_id, device.app_id, l.notification_type, l.created_at
                FROM device CROSS JOIN LATERAL (
                    -- Found through the device's rows (a device's history is short where a fan-out's is not):
                    -- IS TRUE keeps the planner off the notification's index. Only pushes to its present user: a
                    -- token registered again by someone else keeps its device id, not the earlier user's pushes.
                    SELECT l.notification_type, l.created_at FROM push_notification_logs l
                    WHERE l.device_token_id = device.id AND (l.notification_id = \(report.notification)) IS TRUE
                      AND l.status = 'sent' AND l.user_id = device.user_id
                    ORDER BY l.created_at LIMIT 1
                ) AS l
            ),
            counted AS (
                SELECT sent.*, (
                    SELECT count(*) FROM push_interactions i
                    WHERE i.sent_at = sent.created_at AND i.notification_id = \(report.notification)
                      AND i.device_token_id = sent.device_id) AS recorded
                FROM sent
            ),
            inserted AS (
                INSERT INTO push_interactions (
                    notification_id, device_token_id, user_id, app_id, notification_type, action, reply_text, sent_at)
                SELECT \(report.notification), device_id, user_id, app_id, notification_type,
                       \(report.action.rawValue), \(report.text), created_at
                FROM counted WHERE recorded < \(Self.maximumPerDelivery)
                ON CONFLICT (sent_at, notification_id, device_token_id, action) DO NOTHING
                RETURNING id, sent_at
            )
            SELECT (SELECT id FROM inserted), (SELECT sent_at FROM inserted), EXISTS (SELECT FROM sent)
            """
        ).decode((UUID?, Date?, Bool).self)
        guard let (insertedID, sentAt, delivered) = row.first, delivered else { return .notDelivered }
        if let insertedID, let sentAt,
            let interaction = try await client.query(
                "\(unescaped: Self.select) WHERE i.sent_at = \(sentAt) AND i.id = \(insertedID)"
            ).map(Self.decode).first
        {
            events?.enqueue([WebhookEvent(interaction)])
            return .recorded(interaction)
        }
        // Recorded before (or by a concurrent report, whose insert this one's waited for).
        let earlier = try await client.query(
            """
            \(unescaped: Self.select)
            WHERE i.notification_id = \(report.notification) AND i.device_token_id = \(report.device)
              AND i.action = \(report.action.rawValue)
            """
        ).map(Self.decode)
        return earlier.first.map(Recording.repeated) ?? .tooMany
    }

    /// Interactions matching `filter` after `cursor`, in the order they were numbered, up to `limit`.
    ///
    /// The committed interactions without a number are numbered first (see Migrations/0043): one that commits late
    /// is numbered after every one a reader may have read, so a reader that keeps the last cursor reads each one once.
    public func list(_ filter: InteractionFilter, after cursor: InteractionCursor, limit: Int) async throws
        -> [Interaction]
    {
        try await numberCommitted()
        var bindings = PostgresBindings()
        bindings.append(cursor.position)
        var conditions = ["i.position > $1"]
        func match(_ condition: String, _ value: some PostgresEncodable) {
            bindings.append(value)
            conditions.append(condition.replacingOccurrences(of: "$?", with: "$\(bindings.count)"))
        }
        if let notification = filter.notificationID { match("i.notification_id = $?", notification) }
        if let user = filter.userID {
            match("i.user_id = (SELECT u.id FROM users u WHERE u.external_id = $?)", user)
        }
        if let action = filter.action { match("i.action = $?", action.rawValue) }
        if let type = filter.type { match("i.notification_type = $?", type) }
        if let app = filter.appID { match("i.app_id = (SELECT a.id FROM apps a WHERE a.external_id = $?)", app) }
        // One more than a page, for the caller to tell whether more follow.
        bindings.append(max(1, min(limit, Self.maximumLimit + 1)))
        let sql =
            Self.select + " WHERE " + conditions.joined(separator: " AND ")
            + " ORDER BY i.position LIMIT $\(bindings.count)"
        return try await client.query(PostgresQuery(unsafeSQL: sql, bindings: bindings)).map(Self.decode)
    }

    /// Numbers up to ``numberingBatch`` committed interactions that have no number, oldest first, unless another
    /// reader is numbering: numbers are taken from one sequence by one reader at a time and committed with it, so
    /// they only grow in the order readers see them. The statement's snapshot is taken before the lock, so it may
    /// still see rows a reader that held the lock just numbered: the update leaves any row that has a number alone.
    /// (Volatile values of a sorted, limited select are computed after the sort, so the numbers follow it.)
    private func numberCommitted() async throws {
        try await client.execute(
            """
            WITH turn AS (SELECT pg_try_advisory_xact_lock(\(Self.numberingLock)) AS mine),
            due AS (
                SELECT i.sent_at, i.id, nextval('push_interaction_positions') AS position
                FROM push_interactions i, turn
                WHERE turn.mine AND i.position IS NULL
                ORDER BY i.created_at, i.id LIMIT \(Self.numberingBatch)
            )
            UPDATE push_interactions i SET position = due.position
            FROM due WHERE i.sent_at = due.sent_at AND i.id = due.id AND i.position IS NULL
            """)
    }

    /// Interactions numbered per listing: more than a page, so readers catch up with any backlog.
    static let numberingBatch = 5_000
    /// Serializes the readers that number interactions ("interact" in ASCII).
    static let numberingLock: Int64 = 0x69_6E74_6572_6163

    /// An interaction with its notification's type, tags, custom data (the default payload beside `aps`) and
    /// collapse id.
    static let select = """
        SELECT i.id, i.notification_id, i.device_token_id, u.external_id, a.external_id, i.action, i.reply_text,
               i.notification_type, coalesce(n.tags, '{}'),
               coalesce((n.content -> 'payloads' -> 'default') - 'aps', '{}'), n.content ->> 'collapseId',
               i.created_at, i.position
        FROM push_interactions i
        JOIN users u ON u.id = i.user_id
        LEFT JOIN apps a ON a.id = i.app_id
        LEFT JOIN notifications n ON n.id = i.notification_id
        """

    static func decode(_ row: PostgresRow) throws -> Interaction {
        let (id, notification, device, user, app, action, text, type, tags, data, collapseID, createdAt, position) =
            try row.decode(
                (
                    UUID, UUID, UUID, String, String?, String, String?, String, [String], PostgresJSON, String?, Date,
                    Int64?
                ).self)
        return Interaction(
            id: id, notificationID: notification, deviceID: device, userID: user, appID: app,
            action: InteractionAction(recorded: action), text: text, type: type, tags: tags,
            data: try data.decode([String: JSONValue].self), collapseID: collapseID, createdAt: createdAt,
            cursor: position.map(InteractionCursor.init(position:)))
    }
}
