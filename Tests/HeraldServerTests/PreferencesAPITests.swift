import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct PreferencesAPITests {
    struct Row: Sendable, CustomStringConvertible {
        var global: Bool
        var personal: Bool
        var override: Bool?
        var notify: Bool
        var description: String { "global \(global) type \(personal) override \(override.map(String.init) ?? "none")" }
    }

    /// Seed §3.3, row by row, through the API: settings by PATCH, the event by POST, the result in the outbox.
    static let seedTable: [Row] = [
        Row(global: false, personal: true, override: true, notify: false),
        Row(global: true, personal: false, override: nil, notify: false),
        Row(global: true, personal: true, override: nil, notify: true),
        Row(global: true, personal: true, override: false, notify: false),
        Row(global: true, personal: false, override: true, notify: true),
    ]

    @Test func seedTableHoldsEndToEnd() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["owner"])
            _ = try await api.call(
                .put, "/api/v1/projects/p", headers: harness.admin(), json: #"{"name":"P","ownerId":"owner"}"#)
            var users: [String] = []
            for (index, row) in Self.seedTable.enumerated() {
                let user = "row\(index)"
                users.append(user)
                try await DeviceAPITests.setUp(api, users: [user])
                #expect(
                    try await api.call(.put, "/api/v1/projects/p/members/\(user)", headers: harness.admin()).status
                        == .created)
                _ = try await api.call(
                    .post, "/api/v1/devices/register", headers: try harness.user(user),
                    json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
                let personal = try await api.call(
                    .patch, "/api/v1/auth/notifications", headers: try harness.user(user),
                    json: #"{"pushNotificationsEnabled":\#(row.global),"pushNotifyNewFeedback":\#(row.personal)}"#)
                #expect(personal.status == .ok)
                #expect(personal.json?["pushNotifyNewFeedback"] == .bool(row.personal))
                let override = row.override.map(String.init) ?? "null"
                let project = try await api.call(
                    .patch, "/api/v1/projects/p/notification-preferences", headers: try harness.user(user),
                    json: #"{"push":{"newFeedback":\#(override)}}"#)
                #expect(project.status == .ok)
                #expect(project.json?["effectivePreferences"]?["push"]?["newFeedback"] == .bool(row.notify), "\(row)")
            }
            let event = try await api.call(
                .post, "/api/v1/events", headers: harness.bearer(harness.keys[.send]!),
                json:
                    #"{"type":"new_feedback","projectId":"p","actorId":"owner","feedback":{"id":"f1","#
                    + #""title":"Dark mode"}}"#
            )
            #expect(event.status == .accepted)
            let id = try #require(event.json?["id"]?.stringValue)
            _ = try await harness.waitForExpansion(id)
            let names: [String] = try await harness.client.query(
                "SELECT u.external_id FROM deliveries d JOIN users u ON u.id = d.user_id"
            ).decode(String.self)
            let reached = Set(names)
            for (index, row) in Self.seedTable.enumerated() {
                #expect(reached.contains(users[index]) == row.notify, "\(row)")
            }
        }
    }

    @Test func projectPreferencesPatchSemantics() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["owner", "member", "stranger"])
            _ = try await api.call(
                .put, "/api/v1/projects/p", headers: harness.admin(), json: #"{"name":"P","ownerId":"owner"}"#)
            _ = try await api.call(.put, "/api/v1/projects/p/members/member", headers: harness.admin())
            let path = "/api/v1/projects/p/notification-preferences"
            let initial = try await api.call(.get, path, headers: try harness.user("member"))
            #expect(initial.status == .ok)
            #expect(initial.json?["push"]?["newFeedback"] == .null)
            #expect(initial.json?["push"]?["muted"] == .bool(false))
            #expect(initial.text.contains(#""newFeedback":null"#))
            let set = try await api.call(
                .patch, path, headers: try harness.user("member"),
                json: #"{"push":{"newComments":true,"statusChanges":false}}"#)
            #expect(set.json?["push"]?["newComments"] == .bool(true))
            #expect(set.json?["effectivePreferences"]?["push"]?["statusChanges"] == .bool(false))
            // An absent key leaves its override alone; an explicit null removes it.
            let partial = try await api.call(
                .patch, path, headers: try harness.user("member"), json: #"{"push":{"statusChanges":null}}"#)
            #expect(partial.json?["push"]?["newComments"] == .bool(true))
            #expect(partial.json?["push"]?["statusChanges"] == .null)
            #expect(partial.json?["effectivePreferences"]?["push"]?["statusChanges"] == .bool(true))
            let muted = try await api.call(
                .patch, path, headers: try harness.user("member"), json: #"{"push":{"muted":true}}"#)
            #expect(muted.json?["effectivePreferences"]?["push"]?["newComments"] == .bool(false))
            // The owner has preferences without a membership row; strangers see nothing.
            #expect(try await api.call(.get, path, headers: try harness.user("owner")).status == .ok)
            let stranger = try await api.call(.get, path, headers: try harness.user("stranger"))
            #expect(stranger.status == .notFound)
            let strangerPatch = try await api.call(
                .patch, path, headers: try harness.user("stranger"), json: #"{"push":{"muted":true}}"#)
            #expect(strangerPatch.status == .notFound)
            #expect(try await harness.count("project_member_preferences") == 1)
            // Removing the member deletes their overrides.
            #expect(
                try await api.call(.delete, "/api/v1/projects/p/members/member", headers: harness.admin()).status
                    == .noContent)
            #expect(try await harness.count("project_member_preferences") == 0)
            #expect(try await api.call(.get, path, headers: try harness.user("member")).status == .notFound)
        }
    }
}
