import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// Quiet hours on the server: set through `PATCH /auth/notifications`, they hold a push due inside the window as
/// `deferred` until its end, in the user's own zone; urgent pushes and those the backend marks go through.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct QuietHoursAPITests {
    /// A zone with daylight-saving changes, so the expected release follows its rules, not a fixed offset.
    static let zone = TimeZone(identifier: "America/New_York")!

    /// A window around now in ``zone``: `start` five minutes ago, `end` five minutes ahead (minutes of the day).
    static func windowAroundNow() -> (start: Int, end: Int, release: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let now = calendar.dateComponents([.hour, .minute], from: Date())
        let minute = now.hour! * 60 + now.minute!
        let (start, end) = ((minute + 1440 - 5) % 1440, (minute + 5) % 1440)
        let release = calendar.nextDate(
            after: Date(), matching: DateComponents(hour: end / 60, minute: end % 60, second: 0),
            matchingPolicy: .nextTime)!
        return (start, end, release)
    }

    static func quietHours(_ api: API, _ json: String) async throws -> API.Answer {
        try await api.call(
            .patch, "/api/v1/auth/notifications", headers: try api.harness.user("alice"),
            json: #"{"quietHours":\#(json)}"#)
    }

    /// Sends `extra` fields with an alert to alice and returns each of its deliveries' state and release time.
    static func send(_ api: API, _ extra: String = "") async throws -> [(state: String, releaseAt: Date?)] {
        let accepted = try await api.call(
            .post, "/api/v1/notifications", headers: api.harness.bearer(api.harness.keys[.send]!),
            json: #"{"userIds":["alice"],"alert":{"body":"Cycle done"}\#(extra)}"#)
        #expect(accepted.status == .accepted, "\(accepted.text)")
        return try await deliveries(api, try #require(accepted.json?["id"]?.stringValue))
    }

    /// The deliveries of notification `id`, once it is expanded (unless `expanded` says it is already).
    static func deliveries(_ api: API, _ id: String, expanded: Bool = false) async throws -> [(
        state: String, releaseAt: Date?
    )] {
        if !expanded { _ = try await api.harness.waitForExpansion(id) }
        let answer = try await api.call(
            .get, "/api/v1/notifications/\(id)/deliveries", headers: api.harness.bearer(api.harness.keys[.read]!))
        guard case .array(let deliveries)? = answer.json?["deliveries"] else { return [] }
        return deliveries.map {
            ($0["state"]?.stringValue ?? "", $0["releaseAt"]?.stringValue.flatMap(RFC3339Timestamp.parse))
        }
    }

    @Test func aPushInsideTheWindowWaitsForItsEndAndUrgentOnesDoNot() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            let device = try #require(registered.json?["id"]?.stringValue)
            let window = Self.windowAroundNow()
            let set = try await Self.quietHours(
                api,
                #"{"enabled":true,"start":\#(window.start),"end":\#(window.end),"timeZone":"America/New_York"}"#)
            #expect(set.status == .ok, "\(set.text)")
            #expect(
                set.json?["quietHours"]
                    == .object([
                        "enabled": .bool(true), "start": .int(window.start), "end": .int(window.end),
                        "timeZone": .string("America/New_York"),
                    ]))

            let held = try await Self.send(api)
            #expect(held.map(\.state) == ["deferred"])
            let release = try #require(held.first?.releaseAt)
            #expect(abs(release.timeIntervalSince(window.release)) < 1, "\(release) vs \(window.release)")

            // Urgent, marked and silent pushes, and the user's own test, go at once.
            for extra in [
                #","interruptionLevel":"time-sensitive""#, #","interruptionLevel":"critical""#,
                #","respectQuietHours":false"#,
            ] {
                #expect(try await Self.send(api, extra).map(\.state) == ["pending"], "\(extra)")
            }
            let silent = try await api.call(
                .post, "/api/v1/notifications", headers: harness.bearer(harness.keys[.send]!),
                json: #"{"userIds":["alice"],"contentAvailable":true}"#)
            let silentID = try #require(silent.json?["id"]?.stringValue)
            #expect(try await Self.deliveries(api, silentID).map(\.state) == ["pending"])
            let test = try await api.call(.post, "/api/v1/devices/\(device)/test", headers: try harness.user("alice"))
            let testID = try #require(test.json?["id"]?.stringValue)
            #expect(try await Self.deliveries(api, testID).map(\.state) == ["pending"])

            // Turned off, the window is kept for later and pushes go at once.
            let off = try await Self.quietHours(api, #"{"enabled":false}"#)
            #expect(off.json?["quietHours"]?["enabled"] == .bool(false))
            #expect(off.json?["quietHours"]?["start"] == .int(window.start))
            #expect(try await Self.send(api).map(\.state) == ["pending"])
        }
    }

    @Test func aDeferredPushCanStillBeCanceled() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            _ = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            let window = Self.windowAroundNow()
            _ = try await Self.quietHours(
                api,
                #"{"enabled":true,"start":\#(window.start),"end":\#(window.end),"timeZone":"America/New_York"}"#)
            let accepted = try await api.call(
                .post, "/api/v1/notifications", headers: harness.bearer(harness.keys[.send]!),
                json: #"{"userIds":["alice"],"alert":{"body":"Cycle done"},"tags":["machine-1"]}"#)
            let id = try #require(accepted.json?["id"]?.stringValue)
            #expect(try await Self.deliveries(api, id).map(\.state) == ["deferred"])
            let canceled = try await api.call(
                .delete, "/api/v1/notifications?tag=machine-1", headers: harness.bearer(harness.keys[.send]!))
            #expect(canceled.json?["canceledDeliveries"] == .int(1))
            #expect(try await Self.deliveries(api, id, expanded: true).map(\.state) == ["canceled"])
        }
    }

    @Test func badQuietHoursAreRefusedByFieldAndChangeNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            let before = try await harness.snapshot()
            for (json, field) in [
                (#"{"enabled":true}"#, "quietHours"),
                (#"{"start":60,"end":120,"timeZone":"UTC"}"#, "quietHours.enabled"),
                (#"{"enabled":true,"start":1440,"end":60,"timeZone":"UTC"}"#, "quietHours.start"),
                (#"{"enabled":true,"start":60,"end":-1,"timeZone":"UTC"}"#, "quietHours.end"),
                (#"{"enabled":true,"start":60,"end":60,"timeZone":"UTC"}"#, "quietHours.end"),
                (#"{"enabled":true,"start":60,"end":120}"#, "quietHours"),
                (#"{"enabled":true,"start":60,"end":120,"timeZone":"Mars/Olympus_Mons"}"#, "quietHours.timeZone"),
                (#"{"enabled":true,"start":60,"end":120,"timeZone":"america/new_york"}"#, "quietHours.timeZone"),
                (#"{"enabled":true,"start":60,"end":120,"timeZone":"UTC+3"}"#, "quietHours.timeZone"),
                (#"{"enabled":true,"start":60,"end":120,"timeZone":"UTC","days":[1]}"#, "quietHours.days"),
            ] {
                let answer = try await Self.quietHours(api, json)
                #expect(answer.status == .unprocessableContent, "\(json)")
                #expect(answer.field == field, "\(json): \(answer.text)")
            }
            #expect(try await harness.snapshot() == before)
        }
    }
}
