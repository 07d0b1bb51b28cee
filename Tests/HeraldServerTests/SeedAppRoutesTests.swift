import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

/// Seed §8.2's app: it unregisters by token, reads its settings, and mutes projects that notify it without being
/// their member.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct SeedAppRoutesTests {
    @Test func unregisterByTokenDeactivatesOnlyTheCallersDevice() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let token = DeviceAPITests.hexToken()
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(token)","platform":"iOS"}"#)
            #expect(registered.status == .created)
            let path = "/api/v1/devices/unregister"
            // Another user's token is not theirs to remove, and says nothing of whose it is.
            let stranger = try await api.call(
                .post, path, headers: try harness.user("bob"), json: #"{"token":"\#(token)"}"#)
            #expect(stranger.status == .notFound)
            #expect(stranger.field == "token")
            #expect(try await Self.activeDevices(harness) == 1)
            let malformed = try await api.call(
                .post, path, headers: try harness.user("alice"), json: #"{"token":"not hex"}"#)
            #expect(malformed.status == .unprocessableContent)
            #expect(malformed.field == "token")
            let unknownField = try await api.call(
                .post, path, headers: try harness.user("alice"), json: #"{"token":"\#(token)","id":"x"}"#)
            #expect(unknownField.status == .unprocessableContent)
            #expect(try await Self.activeDevices(harness) == 1)
            // The token as Apple gives it, in upper case, names the same device.
            let removed = try await api.call(
                .post, path, headers: harness.admin(actingFor: "alice"), json: #"{"token":"\#(token.uppercased())"}"#)
            #expect(removed.status == .noContent)
            #expect(try await Self.activeDevices(harness) == 0)
            let listed = try await api.call(.get, "/api/v1/devices", headers: try harness.user("alice"))
            guard case .array(let devices) = listed.json?["devices"] else {
                Issue.record("no device list: \(listed.text)")
                return
            }
            #expect(devices.map { $0["isActive"] } == [.bool(false)])
            #expect(!listed.text.lowercased().contains(token.lowercased()))
            #expect(
                try await api.call(.post, path, json: #"{"token":"\#(token)"}"#).status == .unauthorized)
        }
    }

    @Test func readingSettingsChangesNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice"])
            let patched = try await api.call(
                .patch, "/api/v1/auth/notifications", headers: try harness.user("alice"),
                json: #"{"pushNotifyVotes":false}"#)
            #expect(patched.status == .ok)
            let before: Date = try await harness.client.query(
                "SELECT updated_at FROM users WHERE external_id = 'alice'"
            ).scalar(Date.self)
            let read = try await api.call(.get, "/api/v1/auth/notifications", headers: try harness.user("alice"))
            #expect(read.status == .ok)
            #expect(read.json == patched.json, "the PATCH's shape, with what it set")
            #expect(read.json?["pushNotifyVotes"] == .bool(false))
            let after: Date = try await harness.client.query(
                "SELECT updated_at FROM users WHERE external_id = 'alice'"
            ).scalar(Date.self)
            #expect(after == before)
            #expect(
                try await api.call(.get, "/api/v1/auth/notifications", headers: harness.admin(actingFor: "nobody"))
                    .status == .notFound)
            #expect(try await api.call(.get, "/api/v1/auth/notifications").status == .unauthorized)
        }
    }

    /// A status change reaches the feedback's submitter and voters; they may mute the project though they are
    /// neither its owner nor members, and the mute holds for the next event.
    @Test func submittersAndVotersSetProjectPreferences() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["owner", "sub", "voter", "stranger"])
            _ = try await api.call(
                .put, "/api/v1/projects/p", headers: harness.admin(), json: #"{"name":"P","ownerId":"owner"}"#)
            for user in ["sub", "voter", "stranger"] {
                _ = try await api.call(
                    .post, "/api/v1/devices/register", headers: try harness.user(user),
                    json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            }
            let path = "/api/v1/projects/p/notification-preferences"
            #expect(try await api.call(.get, path, headers: try harness.user("sub")).status == .notFound)
            let first = try await Self.statusChange(api, harness, oldStatus: "pending", newStatus: "in_progress")
            // The voter is named by email, in another case than the user's.
            for user in ["sub", "voter"] {
                let read = try await api.call(.get, path, headers: try harness.user(user))
                #expect(read.status == .ok, "\(user)")
                #expect(read.json?["push"]?["muted"] == .bool(false))
            }
            #expect(try await api.call(.get, path, headers: try harness.user("stranger")).status == .notFound)
            #expect(Set(try await Self.recipients(harness, of: first)) == ["sub", "voter"])
            let muted = try await api.call(
                .patch, path, headers: try harness.user("sub"), json: #"{"push":{"muted":true}}"#)
            #expect(muted.status == .ok)
            #expect(muted.json?["effectivePreferences"]?["push"]?["statusChanges"] == .bool(false))
            let strangerPatch = try await api.call(
                .patch, path, headers: try harness.user("stranger"), json: #"{"push":{"muted":true}}"#)
            #expect(strangerPatch.status == .notFound)
            let second = try await Self.statusChange(api, harness, oldStatus: "in_progress", newStatus: "completed")
            #expect(try await Self.recipients(harness, of: second) == ["voter"])
        }
    }

    private static func statusChange(_ api: API, _ harness: APIHarness, oldStatus: String, newStatus: String)
        async throws -> String
    {
        let event = try await api.call(
            .post, "/api/v1/events", headers: harness.bearer(harness.keys[.send]!),
            json: #"{"type":"status_change","projectId":"p","actorId":"owner","oldStatus":"\#(oldStatus)","#
                + #""newStatus":"\#(newStatus)","feedback":{"id":"f1","title":"Dark mode"},"#
                + #""submitter":{"userId":"sub"},"voters":[{"email":"VOTER@Example.com"}]}"#)
        #expect(event.status == .accepted)
        let id = try #require(event.json?["id"]?.stringValue)
        _ = try await harness.waitForExpansion(id)
        return id
    }

    private static func recipients(_ harness: APIHarness, of notification: String) async throws -> [String] {
        try await harness.client.query(
            """
            SELECT u.external_id FROM deliveries d JOIN users u ON u.id = d.user_id
            WHERE d.notification_id = \(UUID(uuidString: notification)!) ORDER BY 1
            """
        ).decode(String.self)
    }

    private static func activeDevices(_ harness: APIHarness) async throws -> Int {
        try await harness.client.query("SELECT count(*) FROM device_tokens WHERE is_active").scalar(Int.self)
    }
}
