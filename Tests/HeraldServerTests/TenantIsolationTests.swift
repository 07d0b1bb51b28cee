import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// An app's API key sees and sends for its own app alone: every route that reads or writes app data answers 404
/// for another app's resources and changes nothing, and the routes that change what every app shares refuse it.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct TenantIsolationTests {
    /// Two apps, each with an admin key of its own, and for each: a device of alice's, a scheduled notification
    /// and log rows.
    struct World {
        var keyA: HTTPFields
        var readA: HTTPFields
        var keyB: HTTPFields
        var deviceA: String
        var deviceB: String
        var notificationB: String
    }

    /// App B's broadcast channel.
    static let channelB = UUID()

    /// Apps a and b, on teams of their own.
    static func createApps(_ api: API) async throws {
        for (app, team) in [("a", "TEAM00000A"), ("b", "TEAM00000B")] {
            let created = try await api.call(
                .put, "/api/v1/apps/\(app)", headers: api.harness.admin(),
                json: #"{"name":"App \#(app)","bundleId":"com.example.\#(app)","teamId":"\#(team)"}"#)
            #expect(created.status == .created)
        }
    }

    static func world(_ api: API) async throws -> World {
        let harness = api.harness
        try await createApps(api)
        try await DeviceAPITests.setUp(api, users: ["alice"])
        #expect(
            try await api.call(
                .put, "/api/v1/projects/p", headers: harness.admin(), json: #"{"name":"P","ownerId":"alice"}"#
            ).status == .created)
        let keys = APIKeyStore(client: harness.client)
        func key(_ app: String, _ scope: APIKeyScope) async throws -> String {
            try await keys.create(name: "\(app) \(scope)", scope: scope, app: ExternalID(app)!).secret
        }
        let keyA = harness.bearer(try await key("a", .admin))
        let keyB = harness.bearer(try await key("b", .admin))
        let readA = harness.bearer(try await key("a", .read))

        func register(_ key: HTTPFields) async throws -> String {
            var headers = key
            headers[HTTPField.Name("X-Herald-User")!] = "alice"
            let answer = try await api.call(
                .post, "/api/v1/devices/register", headers: headers,
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            #expect(answer.status == .created)
            return try #require(answer.json?["id"]?.stringValue)
        }
        let deviceA = try await register(keyA)
        let deviceB = try await register(keyB)
        var actingB = keyB
        actingB[HTTPField.Name("X-Herald-User")!] = "alice"
        let activity = try await api.call(
            .put, "/api/v1/activities/activity-b", headers: actingB,
            json: #"{"deviceId":"\#(deviceB)","attributesType":"Score","token":"\#(DeviceAPITests.hexToken())"}"#)
        #expect(activity.status == .created)
        try await harness.client.execute(
            """
            INSERT INTO broadcast_channels (id, channel_id, app_id, environment, message_storage_policy)
            SELECT \(channelB), 'Y2hhbm5lbEI=', id, 'sandbox', 0 FROM apps WHERE external_id = 'b'
            """)
        let scheduled = try await api.call(
            .post, "/api/v1/notifications", headers: keyB,
            json: #"{"userIds":["alice"],"alert":{"body":"later"},"sendAt":"2099-01-01T00:00:00Z"}"#)
        #expect(scheduled.status == .accepted)
        try await harness.client.execute(
            """
            INSERT INTO push_notification_logs
                (user_id, device_token_id, notification_id, delivery_id, notification_type, status, environment,
                 attempt, created_at)
            SELECT u.id, d.id, gen_random_uuid(), gen_random_uuid(), 'direct', 'sent', 'sandbox', 1, now()
            FROM device_tokens d JOIN users u ON u.id = d.user_id, generate_series(1, 3) WHERE d.kind = 'device'
            """)
        return World(
            keyA: keyA, readA: readA, keyB: keyB, deviceA: deviceA, deviceB: deviceB,
            notificationB: try #require(scheduled.json?["id"]?.stringValue))
    }

    @Test func anAppsKeyFindsNothingOfAnotherAppAndChangesNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await Self.world(api)
            let before = try await harness.snapshot()
            var acting = world.keyA
            acting[HTTPField.Name("X-Herald-User")!] = "alice"
            let notification = "/api/v1/notifications/\(world.notificationB)"
            let attempts: [(HTTPRequest.Method, String, HTTPFields, String?)] = [
                (.get, "/api/v1/apps/b", world.keyA, nil),
                (.put, "/api/v1/apps/b", world.keyA, #"{"name":"Mine","bundleId":"com.example.b","teamId":"X1"}"#),
                (.delete, "/api/v1/apps/b", world.keyA, nil),
                (
                    .post, "/api/v1/devices/register", acting,
                    #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS","appId":"b"}"#
                ),
                (.delete, "/api/v1/devices/\(world.deviceB)", acting, nil),
                (.post, "/api/v1/devices/\(world.deviceB)/test", acting, nil),
                (
                    .post, "/api/v1/events", world.keyA,
                    #"{"type":"new_feedback","projectId":"p","appId":"b","feedback":{"id":"f1","title":"T"}}"#
                ),
                (
                    .post, "/api/v1/notifications", world.keyA,
                    #"{"userIds":["alice"],"alert":{"body":"hi"},"appId":"b"}"#
                ),
                (.get, notification, world.keyA, nil),
                (.get, notification, world.readA, nil),
                (.patch, notification, world.keyA, #"{"alert":{"body":"moved"}}"#),
                (.delete, notification, world.keyA, nil),
                (.get, notification + "/deliveries", world.readA, nil),
                (.get, "/api/v1/logs?appId=b", world.readA, nil),
                (.get, "/api/v1/stats?appId=b", world.readA, nil),
                (
                    .post, "/api/v1/devices/\(world.deviceB)/push-to-start-tokens", acting,
                    #"{"attributesType":"Score","token":"\#(DeviceAPITests.hexToken())"}"#
                ),
                (
                    .put, "/api/v1/activities/activity-b", acting,
                    #"{"deviceId":"\#(world.deviceB)","attributesType":"Score","token":"\#(DeviceAPITests.hexToken())"}"#
                ),
                (.delete, "/api/v1/activities/activity-b", acting, nil),
                (.post, "/api/v1/activities/activity-b/events", world.keyA, #"{"event":"end","contentState":{}}"#),
                (.delete, "/api/v1/channels/\(Self.channelB)", world.keyA, nil),
                (
                    .post, "/api/v1/channels/\(Self.channelB)/broadcasts", world.keyA,
                    #"{"event":"end","contentState":{}}"#
                ),
                (.get, "/api/v1/channels/\(Self.channelB)/broadcasts", world.readA, nil),
                (.post, "/api/v1/channels", world.keyA, #"{"appId":"b","messageStoragePolicy":0}"#),
                (
                    .post, "/api/v1/activities", world.keyA,
                    #"{"userIds":["alice"],"appId":"b","attributesType":"Score","attributes":{},"contentState":{},"alert":{"body":"b"}}"#
                ),
            ]
            for (method, path, headers, body) in attempts {
                let answer = try await api.call(method, path, headers: headers, json: body)
                #expect(answer.status == .notFound, "\(method) \(path): \(answer.status) \(answer.text)")
            }
            #expect(try await harness.snapshot() == before, "a refused request changed nothing")
            let state = try await harness.client.query(
                "SELECT state FROM notifications WHERE id = \(UUID(uuidString: world.notificationB)!)"
            ).scalar(String.self)
            #expect(state == "scheduled")

            // What the key does see is its own app's, and nothing else.
            let channels = try await api.call(.get, "/api/v1/channels", headers: world.readA)
            #expect(channels.status == .ok && AppAPITests.list(channels.json?["channels"]).isEmpty)
            let everyChannel = try await api.call(.get, "/api/v1/channels", headers: harness.admin())
            #expect(AppAPITests.list(everyChannel.json?["channels"]).count == 1)
            let apps = try await api.call(.get, "/api/v1/apps", headers: world.keyA)
            #expect(AppAPITests.list(apps.json?["apps"]).compactMap { $0["id"]?.stringValue } == ["a"])
            let devices = try await api.call(.get, "/api/v1/devices", headers: acting)
            #expect(
                AppAPITests.list(devices.json?["devices"]).compactMap { $0["id"]?.stringValue } == [world.deviceA])
            let logs = try await api.call(.get, "/api/v1/logs?limit=500", headers: world.readA)
            #expect(LogsAPITests.items(logs).count == 3)
            #expect(LogsAPITests.items(logs).allSatisfy { $0["deviceId"]?.stringValue == world.deviceA })
            let everyLog = try await api.call(.get, "/api/v1/logs?limit=500", headers: harness.admin())
            #expect(LogsAPITests.items(everyLog).count == 6, "a key of every app sees both apps' rows")
            let stats = try await api.call(.get, "/api/v1/stats?window=1h", headers: world.readA)
            let statsOfA = try await api.call(.get, "/api/v1/stats?window=1h&appId=a", headers: harness.admin())
            #expect(stats.status == .ok && stats.json?["types"] == statsOfA.json?["types"])
            let own = try await api.call(.get, "/api/v1/notifications/\(world.notificationB)", headers: world.keyB)
            #expect(own.status == .ok, "the other app's key still sees its notification")
        }
    }

    /// A send by an app's key without `appId` is its app's send: it reaches only that app's devices.
    @Test func anAppsKeySendsToItsAppsDevicesOnly() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await Self.world(api)
            let sent = try await api.call(
                .post, "/api/v1/notifications", headers: world.keyA,
                json: #"{"userIds":["alice"],"alert":{"body":"hi"}}"#)
            #expect(sent.status == .accepted)
            let id = try #require(sent.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(id)
            let reached = try await harness.client.query(
                "SELECT device_token_id FROM deliveries WHERE notification_id = \(UUID(uuidString: id)!)"
            ).decode(UUID.self)
            #expect(reached.map { $0.uuidString.lowercased() } == [world.deviceA])
            let readB = try await api.call(.get, "/api/v1/notifications/\(id)", headers: world.keyB)
            #expect(readB.status == .notFound)
        }
    }

    /// The directory, apps and signing keys are shared by every app: an app's key may not change them, and a
    /// registration for its app cannot borrow another app's topic.
    @Test func sharedThingsNeedAKeyOfEveryApp() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let world = try await Self.world(api)
            let before = try await harness.snapshot()
            let attempts: [(HTTPRequest.Method, String, String?)] = [
                (.put, "/api/v1/users/mallory", #"{"email":"m@example.com","name":"M"}"#),
                (.delete, "/api/v1/users/alice", nil),
                (.put, "/api/v1/projects/q", #"{"name":"Q","ownerId":"alice"}"#),
                (.delete, "/api/v1/projects/p", nil),
                (.put, "/api/v1/projects/p/members/alice", nil),
                (.delete, "/api/v1/projects/p/members/alice", nil),
                (.put, "/api/v1/apps/a", #"{"name":"Renamed","bundleId":"com.example.a","teamId":"TEAM00000A"}"#),
                (.delete, "/api/v1/apps/a", nil),
                (.get, "/api/v1/apns-keys", nil),
                (.post, "/api/v1/apns-keys", #"{"teamId":"TEAM00000A","keyId":"K1","privateKey":"x"}"#),
                (.delete, "/api/v1/apns-keys/TEAM00000A/K1", nil),
            ]
            for (method, path, body) in attempts {
                let answer = try await api.call(method, path, headers: world.keyA, json: body)
                #expect(answer.status == .forbidden, "\(method) \(path): \(answer.status) \(answer.text)")
            }
            var acting = world.keyA
            acting[HTTPField.Name("X-Herald-User")!] = "alice"
            let borrowed = try await api.call(
                .post, "/api/v1/devices/register", headers: acting,
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS","topic":"com.example.b"}"#)
            #expect(borrowed.status == .unprocessableContent && borrowed.field == "topic")
            #expect(try await harness.snapshot() == before)
        }
    }
}
