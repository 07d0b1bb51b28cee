import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct ValidationTests {
    struct Case: Sendable, CustomStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String
        var status: HTTPResponse.Status
        var code: String
        var field: String?
        var asUser = false
        var description: String { "\(method) \(path) \(body.prefix(40))" }
    }

    static let token = String(repeating: "ab", count: 32)

    static let cases: [Case] = [
        Case(
            method: .put, path: "/api/v1/users/u1", body: #"{"email":"x@example.com","name":"X""#, status: .badRequest,
            code: "invalid_json"),
        Case(method: .put, path: "/api/v1/users/u1", body: "", status: .badRequest, code: "invalid_json"),
        Case(
            method: .put, path: "/api/v1/users/u1", body: "[1,2]", status: .unprocessableContent,
            code: "validation_failed"),
        Case(
            method: .put, path: "/api/v1/users/u1", body: #"{"email":5,"name":"X"}"#, status: .unprocessableContent,
            code: "validation_failed", field: "email"),
        Case(
            method: .put, path: "/api/v1/users/u1", body: #"{"email":"x@example.com","name":"X","role":"boss"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "role"),
        Case(
            method: .put, path: "/api/v1/users/u1", body: #"{"email":"not-an-email","name":"X"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "email"),
        Case(
            method: .put, path: "/api/v1/users/bad%20id", body: #"{"email":"x@example.com","name":"X"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "userId"),
        Case(
            method: .put, path: "/api/v1/users/\(String(repeating: "a", count: 129))",
            body: #"{"email":"x@example.com","name":"X"}"#, status: .unprocessableContent, code: "validation_failed",
            field: "userId"),
        Case(
            method: .put, path: "/api/v1/projects/p1", body: #"{"name":"P","ownerId":"nobody"}"#,
            status: .notFound, code: "not_found", field: "ownerId"),
        Case(
            method: .put, path: "/api/v1/projects/p1", body: #"{"name":"P","ownerId":"bad id"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "ownerId"),
        Case(
            method: .post, path: "/api/v1/devices/register", body: #"{"token":"abc","platform":"iOS"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "token", asUser: true),
        Case(
            method: .post, path: "/api/v1/devices/register",
            body: #"{"token":"\#(String(repeating: "a", count: 33))","platform":"iOS"}"#, status: .unprocessableContent,
            code: "validation_failed", field: "token", asUser: true),
        Case(
            method: .post, path: "/api/v1/devices/register",
            body: #"{"token":"\#(String(repeating: "ab", count: 257))","platform":"iOS"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "token", asUser: true),
        Case(
            method: .post, path: "/api/v1/devices/register", body: #"{"token":"\#(token)","platform":"Android"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "platform", asUser: true),
        Case(
            method: .post, path: "/api/v1/devices/register",
            body: #"{"token":"\#(token)","platform":"iOS","environment":"staging"}"#, status: .unprocessableContent,
            code: "validation_failed", field: "environment", asUser: true),
        Case(
            method: .post, path: "/api/v1/devices/register",
            body: #"{"token":"\#(token)","platform":"iOS","pushKit":true}"#, status: .unprocessableContent,
            code: "validation_failed", field: "pushKit", asUser: true),
        Case(
            method: .post, path: "/api/v1/devices/register", body: #"{"token":12,"platform":"iOS"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "token", asUser: true),
        Case(
            method: .patch, path: "/api/v1/auth/notifications", body: #"{"pushNotifyVotes":"no"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "pushNotifyVotes", asUser: true),
        Case(
            method: .patch, path: "/api/v1/auth/notifications", body: #"{"pushNotifyVotes":null}"#,
            status: .unprocessableContent, code: "validation_failed", field: "pushNotifyVotes", asUser: true),
        Case(
            method: .patch, path: "/api/v1/auth/notifications", body: #"{"pushNotifyEverything":false}"#,
            status: .unprocessableContent, code: "validation_failed", field: "pushNotifyEverything", asUser: true),
        Case(
            method: .patch, path: "/api/v1/projects/p1/notification-preferences", body: #"{"push":{"votes":1}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "push.votes", asUser: true),
        Case(
            method: .patch, path: "/api/v1/projects/p1/notification-preferences", body: #"{"push":{"loud":true}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "push.loud", asUser: true),
        Case(
            method: .post, path: "/api/v1/events",
            body: #"{"type":"new_like","projectId":"p1","feedback":{"id":"f","title":"T"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "type"),
        Case(
            method: .post, path: "/api/v1/events",
            body: #"{"type":"new_feedback","projectId":"p1","feedback":{"id":"f"}}"#, status: .unprocessableContent,
            code: "validation_failed", field: "feedback.title"),
        Case(
            method: .post, path: "/api/v1/events",
            body: #"{"type":"new_vote","projectId":"p1","feedback":{"id":"f","title":"T"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "voteCount"),
        Case(
            method: .post, path: "/api/v1/events",
            body: #"{"type":"new_feedback","projectId":"nowhere","feedback":{"id":"f","title":"T"}}"#,
            status: .notFound, code: "not_found", field: "projectId"),
        Case(
            method: .post, path: "/api/v1/events",
            body:
                #"{"type":"new_feedback","projectId":"p1","feedback":{"id":"f","title":"T"},"expiration":"2001-01-01T00:00:00Z"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "expiration"),
        Case(
            method: .post, path: "/api/v1/events",
            body: #"{"type":"new_feedback","projectId":"p1","feedback":{"id":"f","title":"T"},"expiration":"soon"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "expiration"),
        Case(
            method: .post, path: "/api/v1/events",
            body: #"{"type":"status_change","projectId":"p1","feedback":{"id":"f","title":"T"},"newStatus":"Done!"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "newStatus"),
        Case(
            method: .post, path: "/api/v1/events",
            body:
                #"{"type":"new_feedback","projectId":"p1","feedback":{"id":"f","title":"T"},"#
                + #""voters":[{"userId":"a","email":"a@example.com"}]}"#,
            status: .unprocessableContent, code: "validation_failed", field: "voters[0]"),
        Case(
            method: .post, path: "/api/v1/notifications", body: #"{"alert":{"body":"hi"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "userIds"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"relevanceScore":1.5}"#,
            status: .unprocessableContent, code: "validation_failed", field: "relevanceScore"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"relevanceScore":"high"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "relevanceScore"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"targetContentId":""}"#,
            status: .unprocessableContent, code: "validation_failed", field: "targetContentId"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"filterCriteria":"a\nb"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "filterCriteria"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"lane":"urgent"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "lane"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"sound":{"critical":2,"name":"a"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "sound.critical"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"sound":{"name":"a","volume":1.5}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "sound.volume"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"sound":{"volume":1}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "sound.name"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"sound":""}"#,
            status: .unprocessableContent, code: "validation_failed", field: "sound"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"titleLocArgs":["a"]}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "alert.titleLocArgs"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"locKey":""}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "alert.locKey"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"launchImage":"Splash"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "alert"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"priority":7}"#, status: .unprocessableContent,
            code: "validation_failed", field: "priority"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"data":{"aps":{}}}"#, status: .unprocessableContent,
            code: "validation_failed", field: "data.aps"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"data":{"heraldNotificationId":"x"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "data.heraldNotificationId"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"sendAt":"tomorrow"}"#, status: .unprocessableContent,
            code: "validation_failed", field: "sendAt"),
        Case(
            method: .post, path: "/api/v1/notifications", body: #"{"deviceIds":["nope"],"alert":{"body":"hi"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "deviceIds[0]"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"\#(String(repeating: "x", count: 5000))"}}"#,
            status: .unprocessableContent, code: "validation_failed", field: "data"),
    ]

    /// A collapse id travels as the `apns-collapse-id` header, where HTTP/2 forbids control characters and
    /// whitespace at either end: such a value, once sent, makes APNs close the whole connection.
    static let headerValueCases: [Case] = [
        #"a\r\nb"#, #"a\nb"#, #"a\u0001b"#, #"a\u007fb"#, #"a\u0085b"#, " a", "a ", #"a\t"#,
    ].map { collapseID in
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"collapseId":"\#(collapseID)"}"#,
            status: .unprocessableContent, code: "validation_failed", field: "collapseId")
    }

    @Test func refusedRequestsAnswerWithTheErrorContractAndChangeNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            _ = try await api.call(
                .put, "/api/v1/users/u1", headers: harness.admin(), json: #"{"email":"u1@example.com","name":"U"}"#)
            _ = try await api.call(
                .put, "/api/v1/projects/p1", headers: harness.admin(), json: #"{"name":"P","ownerId":"u1"}"#)
            let before = try await harness.snapshot()
            for test in Self.cases + Self.headerValueCases {
                let headers = test.asUser ? try harness.user("u1") : harness.admin()
                let answer = try await api.call(test.method, test.path, headers: headers, json: test.body)
                #expect(answer.status == test.status, "\(test)")
                #expect(answer.error == test.code, "\(test)")
                #expect(answer.json?["message"]?.stringValue?.isEmpty == false, "\(test)")
                if let field = test.field { #expect(answer.field == field, "\(test)") }
            }
            #expect(try await harness.snapshot() == before)
        }
    }

    /// The API takes exactly the push types the APNs model can send; mdm, which needs a certificate, is refused
    /// with the reason instead of failing at send time. A widgets or controls push is the reload flag alone, and
    /// Live Activities have routes of their own.
    @Test func pushTypesAreExactlyThoseHeraldCanSend() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            _ = try await api.call(
                .put, "/api/v1/users/u1", headers: harness.admin(), json: #"{"email":"u1@example.com","name":"U"}"#)
            for pushType in PushType.all where ![.widgets, .controls, .liveActivity].contains(pushType) {
                let answer = try await api.call(
                    .post, "/api/v1/notifications", headers: harness.admin(),
                    json:
                        #"{"userIds":["u1"],"alert":{"body":"hi"},"pushType":"\#(pushType.headerValue)","priority":5}"#)
                #expect(answer.status == .accepted, "\(pushType): \(answer.text)")
                if let id = answer.json?["id"]?.stringValue { _ = try await harness.waitForExpansion(id) }
            }
            for reload in ["widgets", "controls"] {
                let answer = try await api.call(
                    .post, "/api/v1/notifications", headers: harness.admin(),
                    json: #"{"userIds":["u1"],"pushType":"\#(reload)"}"#)
                #expect(answer.status == .accepted, "\(reload): \(answer.text)")
                if let id = answer.json?["id"]?.stringValue { _ = try await harness.waitForExpansion(id) }
            }
            let before = try await harness.snapshot()
            for refused in [
                #"{"userIds":["u1"],"alert":{"body":"hi"},"pushType":"widgets"}"#,
                #"{"userIds":["u1"],"alert":{"body":"hi"},"pushType":"controls"}"#,
                #"{"userIds":["u1"],"alert":{"body":"hi"},"pushType":"liveactivity"}"#,
            ] {
                let answer = try await api.call(.post, "/api/v1/notifications", headers: harness.admin(), json: refused)
                #expect(answer.status == .unprocessableContent && answer.field == "pushType", "\(answer.text)")
            }
            let mdm = try await api.call(
                .post, "/api/v1/notifications", headers: harness.admin(),
                json: #"{"userIds":["u1"],"alert":{"body":"hi"},"pushType":"mdm"}"#)
            #expect(mdm.status == .unprocessableContent)
            #expect(mdm.field == "pushType")
            #expect(mdm.json?["message"]?.stringValue?.contains("certificate") == true, "\(mdm.text)")
            #expect(try await harness.snapshot() == before)
        }
    }

    @Test func oversizedBodiesAreRefusedWith413() async throws {
        let harness = try await APIHarness.make(maxBodySize: 2048)
        try await harness.run { api in
            _ = try await api.call(
                .put, "/api/v1/users/u1", headers: harness.admin(), json: #"{"email":"u1@example.com","name":"U"}"#)
            let before = try await harness.snapshot()
            let big = #"{"email":"u1@example.com","name":"\#(String(repeating: "n", count: 4000))"}"#
            let answer = try await api.call(.put, "/api/v1/users/u1", headers: harness.admin(), json: big)
            #expect(answer.status == .contentTooLarge)
            #expect(answer.error == "payload_too_large")
            let register = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("u1"),
                json: #"{"token":"\#(String(repeating: "ab", count: 2000))","platform":"iOS"}"#)
            #expect(register.status == .contentTooLarge)
            #expect(try await harness.snapshot() == before)
        }
    }

    @Test func unknownRoutesAnswerInTheSameShape() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(.get, "/api/v1/nothing-here", headers: harness.admin())
            #expect(answer.status == .notFound)
            #expect(answer.error == "not_found")
        }
    }
}
