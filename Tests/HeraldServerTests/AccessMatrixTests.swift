import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// The access matrix of docs/api.md ("Who may call what") and `openapi.yaml`: every route group called by a key of
/// each scope, without an app and of one app, and by a user's own token. Allowed calls get their route's answer;
/// the others get 403 `forbidden`, and an app's admin key is told the data is shared by every app.
@Suite(.sharesMachine, .timeLimit(.minutes(3))) struct AccessMatrixTests {
    /// Who calls: a key of each scope without an app or of app `a`, or alice's own user token.
    enum Caller: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case read, send, admin, appRead, appSend, appAdmin, user

        var testDescription: String { rawValue }

        /// The key's scope, `nil` for the user token.
        var scope: APIKeyScope? {
            switch self {
            case .read, .appRead: .read
            case .send, .appSend: .send
            case .admin, .appAdmin: .admin
            case .user: nil
            }
        }

        var ofOneApp: Bool { [.appRead, .appSend, .appAdmin].contains(self) }
    }

    enum RouteGroup: String, CaseIterable, Sendable {
        /// Logs, stats, notifications, deliveries, apps, channels and broadcasts, read.
        case reads
        /// Events, notifications, Live Activity starts and updates, broadcasts, withdrawn votes.
        case sends
        /// Broadcast channels made and deleted.
        case channels
        /// A user's devices and Live Activity tokens (a key acts for the user with X-Herald-User).
        case devices
        /// A user's personal settings, quiet hours, project preferences and mutes: the same for every app.
        case personal
        /// Users, projects and members.
        case directory
        /// Apps and signing keys, changed (signing keys also read).
        case appsAndKeys
    }

    /// Who may call each group: the matrix itself.
    static let matrix: [RouteGroup: Set<Caller>] = [
        .reads: [.read, .send, .admin, .appRead, .appSend, .appAdmin],
        .sends: [.send, .admin, .appSend, .appAdmin],
        .channels: [.admin, .appAdmin],
        .devices: [.admin, .appAdmin, .user],
        .personal: [.admin, .user],
        .directory: [.admin],
        .appsAndKeys: [.admin],
    ]

    /// Groups an app's admin key may not call because every app shares their data (the others it may not call for
    /// want of scope).
    static let sharedByEveryApp: Set<RouteGroup> = [.personal, .directory, .appsAndKeys]

    struct Call {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        /// What the route answers an allowed caller here.
        var allowed: Set<HTTPResponse.Status>
    }

    /// Calls of each group that change nothing another call of the run depends on.
    static func calls(_ group: RouteGroup) -> [Call] {
        let none = UUID().uuidString.lowercased()
        switch group {
        case .reads:
            return [
                Call(method: .get, path: "/api/v1/logs", allowed: [.ok]),
                Call(method: .get, path: "/api/v1/stats", allowed: [.ok]),
                Call(method: .get, path: "/api/v1/notifications", allowed: [.ok]),
                Call(method: .get, path: "/api/v1/notifications/\(none)", allowed: [.notFound]),
                Call(method: .get, path: "/api/v1/notifications/\(none)/deliveries", allowed: [.notFound]),
                Call(method: .get, path: "/api/v1/apps", allowed: [.ok]),
                Call(method: .get, path: "/api/v1/apps/a", allowed: [.ok]),
                Call(method: .get, path: "/api/v1/channels", allowed: [.ok]),
                Call(method: .get, path: "/api/v1/channels/\(none)/broadcasts", allowed: [.notFound]),
            ]
        case .sends:
            return [
                Call(
                    method: .post, path: "/api/v1/notifications", body: #"{"userIds":["alice"],"alert":{"body":"hi"}}"#,
                    allowed: [.accepted]),
                Call(
                    method: .post, path: "/api/v1/events",
                    body: #"{"type":"new_feedback","projectId":"p","feedback":{"id":"f-1","title":"T"}}"#,
                    allowed: [.accepted]),
                Call(
                    method: .patch, path: "/api/v1/notifications/\(none)", body: #"{"sendAt":"2099-01-01T00:00:00Z"}"#,
                    allowed: [.notFound]),
                Call(method: .delete, path: "/api/v1/notifications/\(none)", allowed: [.notFound]),
                Call(
                    method: .post, path: "/api/v1/activities/none/events",
                    body: #"{"event":"update","contentState":{}}"#, allowed: [.notFound]),
                Call(
                    method: .post, path: "/api/v1/channels/\(none)/broadcasts",
                    body: #"{"event":"update","contentState":{}}"#, allowed: [.notFound]),
                Call(method: .delete, path: "/api/v1/feedback/f-1/votes/alice", allowed: [.notFound]),
                Call(method: .delete, path: "/api/v1/feedback/f-1", allowed: [.ok]),
            ]
        case .channels:
            return [Call(method: .delete, path: "/api/v1/channels/\(none)", allowed: [.notFound])]
        case .devices:
            return [
                Call(
                    method: .post, path: "/api/v1/devices/register",
                    body: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS","appId":"a"}"#,
                    allowed: [.created]),
                Call(method: .get, path: "/api/v1/devices", allowed: [.ok]),
                Call(method: .delete, path: "/api/v1/devices/\(none)", allowed: [.notFound]),
                Call(method: .delete, path: "/api/v1/activities/none", allowed: [.notFound]),
            ]
        case .personal:
            return [
                Call(
                    method: .patch, path: "/api/v1/auth/notifications", body: #"{"pushNotificationsEnabled":false}"#,
                    allowed: [.ok]),
                Call(
                    method: .patch, path: "/api/v1/auth/notifications",
                    body: #"{"quietHours":{"enabled":true,"start":1320,"end":420,"timeZone":"Europe/Berlin"}}"#,
                    allowed: [.ok]),
                Call(method: .get, path: "/api/v1/projects/p/notification-preferences", allowed: [.ok]),
                Call(
                    method: .patch, path: "/api/v1/projects/p/notification-preferences",
                    body: #"{"push":{"muted":true}}"#, allowed: [.ok]),
            ]
        case .directory:
            return [
                Call(
                    method: .put, path: "/api/v1/users/alice", body: #"{"email":"alice@example.com","name":"Alice"}"#,
                    allowed: [.ok]),
                Call(
                    method: .put, path: "/api/v1/projects/p", body: #"{"name":"P","ownerId":"alice"}"#, allowed: [.ok]),
                Call(method: .put, path: "/api/v1/projects/p/members/bob", allowed: [.created]),
                Call(method: .delete, path: "/api/v1/projects/p/members/bob", allowed: [.noContent]),
                Call(method: .delete, path: "/api/v1/users/nobody", allowed: [.notFound]),
            ]
        case .appsAndKeys:
            return [
                Call(
                    method: .put, path: "/api/v1/apps/a",
                    body: #"{"name":"App a","bundleId":"com.example.a","teamId":"TEAM00000A"}"#, allowed: [.ok]),
                Call(method: .get, path: "/api/v1/apns-keys", allowed: [.ok]),
                Call(method: .delete, path: "/api/v1/apns-keys/TEAM00000A/NOKEY", allowed: [.notFound]),
            ]
        }
    }

    /// App `a`; alice (owner and member of project p) and bob.
    static func world(_ api: API) async throws {
        let created = try await api.call(
            .put, "/api/v1/apps/a", headers: api.harness.admin(),
            json: #"{"name":"App a","bundleId":"com.example.a","teamId":"TEAM00000A"}"#)
        #expect(created.status == .created)
        try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
        for (path, body) in [
            ("/api/v1/projects/p", #"{"name":"P","ownerId":"alice"}"#), ("/api/v1/projects/p/members/alice", nil),
        ] {
            #expect(try await api.call(.put, path, headers: api.harness.admin(), json: body).status == .created)
        }
    }

    /// The caller's credentials; keys act for alice.
    static func credentials(_ caller: Caller, _ harness: APIHarness) async throws -> HTTPFields {
        guard let scope = caller.scope else { return try harness.user("alice") }
        let secret =
            caller.ofOneApp
            ? try await APIKeyStore(client: harness.client).create(
                name: caller.rawValue, scope: scope, app: ExternalID("a")!
            ).secret
            : harness.keys[scope]!
        var headers = harness.bearer(secret)
        headers[HTTPField.Name("X-Herald-User")!] = "alice"
        return headers
    }

    @Test(arguments: Caller.allCases)
    func everyRouteGroupAnswersAsTheMatrixSays(caller: Caller) async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.world(api)
            let headers = try await Self.credentials(caller, harness)
            for group in RouteGroup.allCases {
                let allowed = Self.matrix[group]!.contains(caller)
                for call in Self.calls(group) {
                    let answer = try await api.call(call.method, call.path, headers: headers, json: call.body)
                    let what = "\(caller) \(group) \(call.method) \(call.path): \(answer.status) \(answer.text)"
                    if allowed {
                        #expect(call.allowed.contains(answer.status), "\(what)")
                    } else {
                        #expect(answer.status == .forbidden && answer.error == "forbidden", "\(what)")
                        if caller == .appAdmin {
                            #expect(Self.sharedByEveryApp.contains(group), "\(what)")
                            #expect(answer.text.contains("shared by every app"), "\(what)")
                        }
                    }
                }
            }
            if !Self.matrix[.personal]!.contains(caller) {
                let untouched = try await harness.client.query(
                    """
                    SELECT u.push_notifications_enabled AND NOT u.quiet_hours_enabled
                        AND NOT EXISTS (SELECT 1 FROM project_member_preferences x WHERE x.user_id = u.id)
                    FROM users u WHERE u.external_id = 'alice'
                    """
                ).scalar(Bool.self)
                #expect(untouched, "a refused caller changed none of alice's settings")
            }
        }
    }
}
