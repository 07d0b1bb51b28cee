import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct DeviceAPITests {
    static func hexToken() -> String {
        (0..<32).map { _ in String(format: "%02X", UInt8.random(in: 0...255)) }.joined()
    }

    static func setUp(_ api: API, users: [String]) async throws {
        for user in users {
            let answer = try await api.call(
                .put, "/api/v1/users/\(user)", headers: api.harness.admin(),
                json: #"{"email":"\#(user)@example.com","name":"\#(user)"}"#)
            #expect(answer.status == .created)
        }
    }

    @Test func reRegistrationMovesTheTokenToTheCallerAndNoResponseShowsIt() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.setUp(api, users: ["alice", "bob"])
            let token = Self.hexToken()
            var bodies: [String] = []
            let first = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(token)","platform":"iOS","appVersion":"1.2.0","osVersion":"18.0"}"#)
            #expect(first.status == .created)
            #expect(first.json?["isActive"] == .bool(true))
            #expect(first.json?["environment"] == .string("sandbox"))
            let id = try #require(first.json?["id"]?.stringValue)
            bodies.append(first.text)
            let removed = try await api.call(.delete, "/api/v1/devices/\(id)", headers: try harness.user("alice"))
            #expect(removed.status == .noContent)
            let listed = try await api.call(.get, "/api/v1/devices", headers: try harness.user("alice"))
            #expect(listed.json?["devices"] == .array([]) || listed.text.contains("removed_by_user"))
            bodies.append(listed.text)
            let again = try await api.call(
                .post, "/api/v1/devices/register", headers: harness.admin(actingFor: "bob"),
                json: #"{"token":"\#(token.lowercased())","platform":"macOS","environment":"production"}"#)
            #expect(again.status == .ok)
            #expect(again.json?["id"] == .string(id))
            #expect(again.json?["isActive"] == .bool(true))
            bodies.append(again.text)
            let bobs = try await api.call(.get, "/api/v1/devices", headers: try harness.user("bob"))
            #expect(bobs.json?["devices"].map { if case .array(let list) = $0 { list.count } else { 0 } } == 1)
            bodies.append(bobs.text)
            let alices = try await api.call(.get, "/api/v1/devices", headers: try harness.user("alice"))
            #expect(alices.json?["devices"] == .array([]))
            bodies.append(alices.text)
            // A bad token's error must not echo it either.
            let bad = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("bob"),
                json: #"{"token":"\#(token)zz","platform":"iOS"}"#)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.field == "token")
            bodies.append(bad.text)
            for body in bodies {
                #expect(!body.lowercased().contains(token.lowercased()))
            }
            #expect(try await harness.count("device_tokens") == 1)
        }
    }

    /// The registration rule is the sending rule: the longest token the API takes is one Herald can send.
    @Test func tokensUpTo256BytesRegisterAndLongerAreRefused() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.setUp(api, users: ["alice"])
            let longest = String(repeating: "ab", count: 256)
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(longest)","platform":"iOS"}"#)
            #expect(registered.status == .created, "\(registered.text)")
            let before = try await harness.snapshot()
            let tooLong = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(longest)ab","platform":"iOS"}"#)
            #expect(tooLong.status == .unprocessableContent)
            #expect(tooLong.field == "token")
            #expect(try await harness.snapshot() == before)
        }
    }

    /// The body the seed's own app sends (004 §8.2): its `osVersion` is Foundation's
    /// `operatingSystemVersionString`, 28 characters on iOS 18.
    @Test func theSeedAppsRegistrationBodyRegistersAsIs() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.setUp(api, users: ["alice"])
            let seedBody = #"""
                {"token":"\#(Self.hexToken().lowercased())","platform":"iOS","appVersion":"1.2.0","osVersion":"Version 18.0 (Build 22A3354)"}
                """#
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"), json: seedBody)
            #expect(registered.status == .created, "\(registered.text)")
            #expect(registered.json?["osVersion"] == .string("Version 18.0 (Build 22A3354)"))
            let before = try await harness.snapshot()
            let tooLong = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json:
                    #"{"token":"\#(Self.hexToken())","platform":"iOS","osVersion":"\#(String(repeating: "9", count: 65))"}"#
            )
            #expect(tooLong.status == .unprocessableContent)
            #expect(tooLong.field == "osVersion")
            #expect(try await harness.snapshot() == before)
        }
    }

    @Test func aUserCannotTouchAnotherUsersDevice() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await Self.setUp(api, users: ["alice", "mallory"])
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(Self.hexToken())","platform":"iOS"}"#)
            let id = try #require(registered.json?["id"]?.stringValue)
            let attempt = try await api.call(.delete, "/api/v1/devices/\(id)", headers: try harness.user("mallory"))
            #expect(attempt.status == .notFound)
            #expect(attempt.error == "not_found")
            let malloryList = try await api.call(.get, "/api/v1/devices", headers: try harness.user("mallory"))
            #expect(malloryList.json?["devices"] == .array([]))
            let active = try await harness.client.query("SELECT is_active FROM device_tokens").scalar(Bool.self)
            #expect(active)
            let bad = try await api.call(.delete, "/api/v1/devices/not-a-uuid", headers: try harness.user("alice"))
            #expect(bad.status == .unprocessableContent)
        }
    }

    @Test func unknownUserGetsNotFound() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("ghost"),
                json: #"{"token":"\#(Self.hexToken())","platform":"iOS"}"#)
            #expect(answer.status == .notFound)
            #expect(try await harness.count("device_tokens") == 0)
        }
    }
}
