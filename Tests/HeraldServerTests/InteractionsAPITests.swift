import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Synchronization
import Testing

/// What people do with a push comes back: reports from the app, read in order by backends, counted in statistics
/// and posted to the webhook.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct InteractionsAPITests {
    static let open = "com.apple.UNNotificationDefaultActionIdentifier"
    static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"

    /// Takes webhook events as the webhook sender would.
    final class RecordingSink: DeliveryEventSink {
        let events = Mutex<[WebhookEvent]>([])
        func enqueue(_ events: [WebhookEvent]) { self.events.withLock { $0.append(contentsOf: events) } }
        func run() async {}
    }

    /// A direct send to `users` that the engine has delivered to each of their devices.
    static func delivered(_ api: API, to users: [String], body: String = #""alert":{"body":"hi"}"#) async throws
        -> String
    {
        let harness = api.harness
        let list = users.map { #""\#($0)""# }.joined(separator: ",")
        let accepted = try await api.call(
            .post, "/api/v1/notifications", headers: harness.admin(),
            json: #"{"userIds":[\#(list)],\#(body)}"#)
        #expect(accepted.status == .accepted, "\(accepted.text)")
        let id = try #require(accepted.json?["id"]?.stringValue)
        _ = try await harness.waitForExpansion(id)
        try await harness.client.execute(
            """
            WITH finished AS (DELETE FROM deliveries WHERE notification_id = \(UUID(uuidString: id)!) RETURNING *)
            INSERT INTO push_notification_logs (
                user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                attempt, http_status)
            SELECT f.user_id, f.device_token_id, f.notification_id, f.id, f.notification_type, 'sent', f.environment,
                1, 200
            FROM finished AS f
            """)
        return id
    }

    static func device(_ api: API, of user: String) async throws -> String {
        let registered = try await api.call(
            .post, "/api/v1/devices/register", headers: try api.harness.user(user),
            json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
        return try #require(registered.json?["id"]?.stringValue)
    }

    static func report(
        _ api: API, _ notification: String, device: String, action: String, text: String? = nil, as user: String
    ) async throws -> API.Answer {
        let text = text.map { #","text":"\#($0)""# } ?? ""
        return try await api.call(
            .post, "/api/v1/notifications/\(notification)/interactions", headers: try api.harness.user(user),
            json: #"{"deviceId":"\#(device)","action":"\#(action)"\#(text)}"#)
    }

    static func items(_ answer: API.Answer) -> [JSONValue] {
        if case .array(let items)? = answer.json?["items"] { items } else { [] }
    }

    @Test func onlyTheOwnerOfADeliveredDeviceReportsAndEachActionCountsOnce() async throws {
        let sink = RecordingSink()
        let harness = try await APIHarness.make(interactionEvents: sink)
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let alices = try await Self.device(api, of: "alice")
            let bobs = try await Self.device(api, of: "bob")
            let both = try await Self.delivered(api, to: ["alice", "bob"])
            let bobsOnly = try await Self.delivered(api, to: ["bob"])

            // Another user's device, or a push never sent to this device, is not there to report on.
            let foreign = try await Self.report(api, both, device: bobs, action: Self.open, as: "alice")
            #expect(foreign.status == .notFound)
            #expect(foreign.field == "notificationId")
            let notSent = try await Self.report(api, bobsOnly, device: alices, action: Self.open, as: "alice")
            #expect(notSent.status == .notFound)
            let unknown = try await Self.report(api, UUID().uuidString, device: alices, action: Self.open, as: "alice")
            #expect(unknown.status == .notFound)

            let opened = try await Self.report(api, both, device: alices, action: Self.open, as: "alice")
            #expect(opened.status == .created, "\(opened.text)")
            #expect(opened.json?["action"] == .string("opened"))
            #expect(opened.json?["userId"] == .string("alice"))
            #expect(opened.json?["text"] == .null)
            let again = try await Self.report(api, both, device: alices, action: Self.open, as: "alice")
            #expect(again.status == .ok)
            #expect(again.json?["id"] == opened.json?["id"])
            let replied = try await Self.report(
                api, both, device: alices, action: "REPLY_ACTION", text: "On my way", as: "alice")
            #expect(replied.status == .created)
            #expect(replied.json?["text"] == .string("On my way"))
            #expect(try await harness.count("push_interactions") == 2)

            let webhook = sink.events.withLock { $0 }
            #expect(webhook.map(\.type) == [.interaction, .interaction], "a repeat posts nothing")
            #expect(webhook.map(\.action) == ["opened", "REPLY_ACTION"])
            #expect(webhook.last?.text == "On my way")
            #expect(webhook.last?.userId == "alice")
            #expect(webhook.last?.notificationId == UUID(uuidString: both))
            #expect(webhook.last?.deviceId == UUID(uuidString: alices))

            // Each action is bounded, and one device's different actions per notification too.
            let path = "/api/v1/notifications/\(both)/interactions"
            let refusals: [(String, String)] = [
                (#"{"deviceId":"\#(alices)","action":""}"#, "action"),
                (#"{"deviceId":"\#(alices)","action":"\#(String(repeating: "a", count: 65))"}"#, "action"),
                (#"{"deviceId":"\#(alices)","action":"A\r\nB"}"#, "action"),
                (#"{"deviceId":"\#(alices)","action":"X","text":"\#(String(repeating: "é", count: 2049))"}"#, "text"),
                (#"{"deviceId":"not-a-uuid","action":"X"}"#, "deviceId"),
                (#"{"deviceId":"\#(alices)","action":"X","extra":1}"#, "extra"),
            ]
            for (body, field) in refusals {
                let refused = try await api.call(.post, path, headers: try harness.user("alice"), json: body)
                #expect(refused.status == .unprocessableContent, "\(body)")
                #expect(refused.field == field, "\(body)")
            }
            #expect(
                try await api.call(.post, path, json: #"{"deviceId":"\#(alices)","action":"X"}"#).status
                    == .unauthorized)
            for index in 0..<(InteractionStore.maximumPerDelivery - 2) {
                let action = try await Self.report(api, both, device: alices, action: "ACTION_\(index)", as: "alice")
                #expect(action.status == .created)
            }
            let tooMany = try await Self.report(api, both, device: alices, action: "ONE_MORE", as: "alice")
            #expect(tooMany.status == .conflict)
            #expect(tooMany.field == "action")
            #expect(try await harness.count("push_interactions") == InteractionStore.maximumPerDelivery)
        }
    }

    @Test func theListingReadsOnFromItsCursorWithFiltersAndTheNotificationsData() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let alices = try await Self.device(api, of: "alice")
            let bobs = try await Self.device(api, of: "bob")
            let mail = try await Self.delivered(
                api, to: ["alice", "bob"],
                body: #""type":"email","alert":{"body":"New mail"},"collapseId":"email-42","#
                    + #""tags":["inbox"],"data":{"emailId":"42"}"#)
            let other = try await Self.delivered(api, to: ["alice"])
            #expect(try await Self.report(api, mail, device: alices, action: Self.open, as: "alice").status == .created)
            #expect(
                try await Self.report(api, mail, device: bobs, action: "ARCHIVE_ACTION", as: "bob").status == .created)
            #expect(
                try await Self.report(api, other, device: alices, action: Self.dismiss, as: "alice").status == .created)

            let read = harness.bearer(harness.keys[.read]!)
            let all = try await api.call(.get, "/api/v1/interactions", headers: read)
            #expect(all.status == .ok)
            let items = Self.items(all)
            #expect(items.map { $0["action"] } == [.string("opened"), .string("ARCHIVE_ACTION"), .string("dismissed")])
            #expect(all.json?["hasMore"] == .bool(false))
            let first = try #require(items.first)
            #expect(first["type"] == .string("email"))
            #expect(first["tags"] == .array([.string("inbox")]))
            #expect(first["data"] == .object(["emailId": .string("42")]))
            #expect(first["collapseId"] == .string("email-42"))
            #expect(first["notificationId"] == .string(mail))
            #expect(first["deviceId"] == .string(alices))
            #expect(!all.text.contains("\"aps\""))

            func listed(_ query: String) async throws -> [JSONValue] {
                let answer = try await api.call(.get, "/api/v1/interactions?\(query)", headers: read)
                #expect(answer.status == .ok, "\(query): \(answer.text)")
                return Self.items(answer).map { $0["action"] ?? .null }
            }
            #expect(try await listed("userId=bob") == [.string("ARCHIVE_ACTION")])
            #expect(try await listed("action=\(Self.dismiss)") == [.string("dismissed")])
            #expect(try await listed("action=opened") == [.string("opened")])
            #expect(try await listed("type=email&userId=alice") == [.string("opened")])
            #expect(try await listed("notificationId=\(other)") == [.string("dismissed")])

            // A page of one says more follow; its cursor reads on from there, and past the end finds nothing new.
            let page = try await api.call(.get, "/api/v1/interactions?limit=1", headers: read)
            #expect(page.json?["hasMore"] == .bool(true))
            let cursor = try #require(page.json?["nextCursor"]?.stringValue)
            #expect(try await listed("since=\(cursor)") == [.string("ARCHIVE_ACTION"), .string("dismissed")])
            let end = try #require(all.json?["nextCursor"]?.stringValue)
            let after = try await api.call(.get, "/api/v1/interactions?since=\(end)", headers: read)
            #expect(Self.items(after).isEmpty)
            #expect(after.json?["nextCursor"] == .string(end), "an empty page keeps the cursor")

            for (query, field) in [("since=yesterday", "since"), ("limit=501", "limit"), ("user=bob", "user")] {
                let refused = try await api.call(.get, "/api/v1/interactions?\(query)", headers: read)
                #expect(refused.status == .unprocessableContent, "\(query)")
                #expect(refused.field == field)
            }
            #expect(
                try await api.call(.get, "/api/v1/interactions", headers: try harness.user("alice")).status
                    == .forbidden)
        }
    }

    /// An interaction whose recording commits after a later one's is not skipped by a reader that already read the
    /// later one: it is numbered when it has committed, after what the reader has read.
    @Test func aReaderNeverSkipsAnInteractionCommittedLate() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            let device = try await Self.device(api, of: "alice")
            let notification = try await Self.delivered(api, to: ["alice"])
            let read = harness.bearer(harness.keys[.read]!)
            let cursor = try await harness.client.withTransaction { connection in
                try await connection.execute(
                    """
                    INSERT INTO push_interactions (
                        notification_id, device_token_id, user_id, notification_type, action, sent_at, created_at)
                    SELECT l.notification_id, l.device_token_id, l.user_id, l.notification_type, 'EARLY', l.created_at,
                        now() - interval '1 minute'
                    FROM push_notification_logs l
                    """)
                let later = try await Self.report(api, notification, device: device, action: Self.open, as: "alice")
                #expect(later.status == .created)
                let meanwhile = try await api.call(.get, "/api/v1/interactions", headers: read)
                #expect(Self.items(meanwhile).map { $0["action"] } == [.string("opened")], "\(meanwhile.text)")
                return try #require(meanwhile.json?["nextCursor"]?.stringValue)
            }
            let listed = try await api.call(.get, "/api/v1/interactions?since=\(cursor)", headers: read)
            #expect(Self.items(listed).map { $0["action"] } == [.string("EARLY")])
            let all = try await api.call(.get, "/api/v1/interactions", headers: read)
            #expect(Self.items(all).map { $0["action"] } == [.string("opened"), .string("EARLY")])
        }
    }

    /// A full page of the largest size still says whether more follow.
    @Test func aPageOfFiveHundredTellsThatMoreFollow() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            _ = try await Self.device(api, of: "alice")
            _ = try await Self.delivered(api, to: ["alice"])
            try await harness.client.execute(
                """
                INSERT INTO push_interactions (
                    notification_id, device_token_id, user_id, notification_type, action, sent_at)
                SELECT l.notification_id, l.device_token_id, l.user_id, l.notification_type, 'A' || n, l.created_at
                FROM push_notification_logs l, generate_series(1, 501) AS n
                """)
            let read = harness.bearer(harness.keys[.read]!)
            let page = try await api.call(.get, "/api/v1/interactions?limit=500", headers: read)
            #expect(Self.items(page).count == 500)
            #expect(page.json?["hasMore"] == .bool(true))
            let cursor = try #require(page.json?["nextCursor"]?.stringValue)
            let rest = try await api.call(.get, "/api/v1/interactions?limit=500&since=\(cursor)", headers: read)
            #expect(Self.items(rest).count == 1)
            #expect(rest.json?["hasMore"] == .bool(false))
        }
    }

    @Test func anAppsKeyListsItsOwnAppsInteractionsOnly() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await TenantIsolationTests.world(api)
            let notification = try await Self.delivered(api, to: ["alice"])
            for device in [world.deviceA, world.deviceB] {
                #expect(
                    try await Self.report(api, notification, device: device, action: Self.open, as: "alice").status
                        == .created)
            }
            let mine = try await api.call(.get, "/api/v1/interactions", headers: world.readA)
            #expect(Self.items(mine).map { $0["deviceId"] } == [.string(world.deviceA)])
            #expect(Self.items(mine).first?["appId"] == .string("a"))
            let asked = try await api.call(.get, "/api/v1/interactions?appId=b", headers: world.readA)
            #expect(asked.status == .notFound || Self.items(asked).isEmpty, "\(asked.text)")
            let everyApp = try await api.call(
                .get, "/api/v1/interactions", headers: harness.bearer(harness.keys[.read]!))
            #expect(Self.items(everyApp).count == 2)
        }
    }

    @Test func statisticsCountOpensDismissalsAndActionsBesideSends() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob", "carol"])
            let alices = try await Self.device(api, of: "alice")
            let bobs = try await Self.device(api, of: "bob")
            _ = try await Self.device(api, of: "carol")
            let notification = try await Self.delivered(
                api, to: ["alice", "bob", "carol"], body: #""type":"email","alert":{"body":"New mail"}"#)
            _ = try await Self.report(api, notification, device: alices, action: Self.open, as: "alice")
            _ = try await Self.report(api, notification, device: alices, action: "MARK_READ_ACTION", as: "alice")
            _ = try await Self.report(api, notification, device: bobs, action: Self.dismiss, as: "bob")
            let stats = try await api.call(
                .get, "/api/v1/stats?window=1h&buckets=4", headers: harness.bearer(harness.keys[.read]!))
            #expect(stats.status == .ok)
            guard case .array(let types)? = stats.json?["types"], case .array(let series)? = stats.json?["series"]
            else {
                Issue.record("no types or series in \(stats.text)")
                return
            }
            let email = try #require(types.first { $0["type"] == .string("email") })
            #expect(email["byState"]?["sent"] == .int(3))
            #expect(email["opened"] == .int(1))
            #expect(email["dismissed"] == .int(1))
            #expect(email["actions"] == .object(["MARK_READ_ACTION": .int(1)]))
            #expect(email["openRate"] == .double(0.333), "rates answer to a thousandth: \(stats.text)")
            #expect(series.count == 4)
            #expect(series.last?["opened"] == .int(1), "recorded just now: the last bucket")
            #expect(series.last?["actions"] == .object(["MARK_READ_ACTION": .int(1)]))
            #expect(series.dropLast().allSatisfy { $0["opened"] == .int(0) })
        }
    }
}
