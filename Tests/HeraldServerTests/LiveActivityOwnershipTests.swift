import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// A Live Activity id belongs to the app and user that report it first: another user or app gets 409 and changes
/// nothing, the owner reports it from each of their devices, and the backend's events reach the owner alone.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct LiveActivityOwnershipTests {
    /// Registers a device for `user` (in `app`, if named) and returns its id.
    static func device(_ api: API, of user: String, app: String? = nil) async throws -> String {
        let appID = app.map { #","appId":"\#($0)""# } ?? ""
        let answer = try await api.call(
            .post, "/api/v1/devices/register", headers: try api.harness.user(user),
            json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"\#(appID)}"#)
        #expect(answer.status == .created, "\(answer.text)")
        return try #require(answer.json?["id"]?.stringValue)
    }

    /// `user` reports `activity` running on `device` with a new update token.
    static func report(_ api: API, _ activity: String, on device: String, by user: String) async throws -> API.Answer {
        try await api.call(
            .put, "/api/v1/activities/\(activity)", headers: try api.harness.user(user),
            json: #"{"deviceId":"\#(device)","attributesType":"Order","token":"\#(DeviceAPITests.hexToken())"}"#)
    }

    /// The users whose tokens the notification reached.
    static func reached(_ harness: APIHarness, _ id: String) async throws -> [String] {
        _ = try await harness.waitForExpansion(id)
        return try await harness.client.query(
            """
            SELECT u.external_id FROM deliveries d JOIN device_tokens t ON t.id = d.device_token_id
            JOIN users u ON u.id = t.user_id
            WHERE d.notification_id = \(UUID(uuidString: id)!) AND t.kind = 'activity'
            ORDER BY u.external_id
            """
        ).decode(String.self)
    }

    @Test func anotherUsersReportIsRefusedAndUpdatesReachTheOwnerAlone() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let phone = try await Self.device(api, of: "alice")
            let tablet = try await Self.device(api, of: "alice")
            let bobs = try await Self.device(api, of: "bob")
            #expect(try await Self.report(api, "order-42", on: phone, by: "alice").status == .created)

            let before = try await harness.snapshot()
            let taken = try await Self.report(api, "order-42", on: bobs, by: "bob")
            #expect(taken.status == .conflict)
            #expect(taken.error == "conflict" && taken.field == "activityId", "\(taken.text)")
            #expect(try await harness.snapshot() == before, "a refused report writes nothing")
            let ended = try await api.call(.delete, "/api/v1/activities/order-42", headers: try harness.user("bob"))
            #expect(ended.status == .notFound && ended.field == "activityId", "bob has no such activity to end")

            #expect(try await Self.report(api, "order-42", on: tablet, by: "alice").status == .created)
            #expect(try await Self.report(api, "order-42", on: phone, by: "alice").status == .ok)

            let update = try await api.call(
                .post, "/api/v1/activities/order-42/events", headers: harness.admin(),
                json: #"{"event":"update","contentState":{"stage":"out for delivery"}}"#)
            #expect(update.status == .accepted, "\(update.text)")
            let id = try #require(update.json?["id"]?.stringValue)
            #expect(try await Self.reached(harness, id) == ["alice", "alice"], "both of alice's devices, not bob")
        }
    }

    @Test func anotherAppsReportOfTheSameIdIsRefused() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await TenantIsolationTests.createApps(api)
            try await DeviceAPITests.setUp(api, users: ["alice"])
            let inA = try await Self.device(api, of: "alice", app: "a")
            let inB = try await Self.device(api, of: "alice", app: "b")
            #expect(try await Self.report(api, "ride-7", on: inA, by: "alice").status == .created)
            let before = try await harness.snapshot()
            let otherApp = try await Self.report(api, "ride-7", on: inB, by: "alice")
            #expect(otherApp.status == .conflict && otherApp.field == "activityId", "\(otherApp.text)")
            #expect(try await harness.snapshot() == before)

            // App b's key does not even find it; a key of every app sends it to app a.
            let keyB = try await APIKeyStore(client: harness.client).create(
                name: "b", scope: .send, app: ExternalID("b")!
            ).secret
            let fromB = try await api.call(
                .post, "/api/v1/activities/ride-7/events", headers: harness.bearer(keyB),
                json: #"{"event":"update","contentState":{}}"#)
            #expect(fromB.status == .notFound && fromB.field == "activityId")
            let update = try await api.call(
                .post, "/api/v1/activities/ride-7/events", headers: harness.admin(),
                json: #"{"event":"update","contentState":{}}"#)
            let id = try #require(update.json?["id"]?.stringValue)
            #expect(try await Self.reached(harness, id) == ["alice"])
            let apps = try await harness.client.query(
                """
                SELECT a.external_id FROM deliveries d JOIN device_tokens t ON t.id = d.device_token_id
                JOIN apps a ON a.id = t.app_id WHERE d.notification_id = \(UUID(uuidString: id)!)
                """
            ).decode(String.self)
            #expect(apps == ["a"])
        }
    }

    /// Users reporting a new id at the same moment: exactly one of them owns it.
    @Test func concurrentFirstReportsBindTheIdOnce() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let users = (0..<8).map { "u\($0)" }
            try await DeviceAPITests.setUp(api, users: users)
            var devices: [String: String] = [:]
            for user in users { devices[user] = try await Self.device(api, of: user) }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for user in users {
                    let device = devices[user]!
                    group.addTask { try await Self.report(api, "race-1", on: device, by: user).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == .conflict }.count == users.count - 1, "\(statuses)")
            let owners = try await harness.client.query(
                "SELECT count(DISTINCT user_id) FROM device_tokens WHERE activity_id = 'race-1'"
            ).scalar(Int.self)
            #expect(owners == 1)
        }
    }
}
