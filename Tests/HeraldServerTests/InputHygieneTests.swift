import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Testing

/// Input no field can hold is refused at the edge, naming where it was, before it reaches the database: a NUL byte
/// (PostgreSQL refuses it in text and jsonb), other control characters in paths and queries, text that is not UTF-8.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct InputHygieneTests {
    struct Case: Sendable, CustomStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var status: HTTPResponse.Status
        var field: String?
        var description: String { "\(method) \(path) \(body ?? "")" }
    }

    static let cases: [Case] = [
        Case(method: .get, path: "/api/v1/logs?type=%00", status: .unprocessableContent, field: "type"),
        Case(method: .get, path: "/api/v1/logs?reason=Bad%00Token", status: .unprocessableContent, field: "reason"),
        Case(method: .get, path: "/api/v1/logs?type=a%01b", status: .unprocessableContent, field: "type"),
        Case(method: .get, path: "/api/v1/logs?type=%FF%FE", status: .badRequest, field: "type"),
        Case(method: .get, path: "/api/v1/logs?type=%ZZ", status: .badRequest, field: "type"),
        Case(method: .delete, path: "/api/v1/users/a%00b", status: .unprocessableContent, field: "path"),
        // A method the path is not served with is a 405 whatever the path holds.
        Case(method: .get, path: "/api/v1/users/a%00b", status: .methodNotAllowed),
        Case(
            method: .put, path: "/api/v1/users/u1", body: #"{"email":"x@example.com","name":"A\u0000B"}"#,
            status: .unprocessableContent, field: "name"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"data":{"k":["ok","\u0000"]}}"#,
            status: .unprocessableContent, field: "data.k[1]"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"data":{"\u0000":"x"}}"#, status: .unprocessableContent,
            field: "data"),
        // What PostgreSQL's [[:cntrl:]] matches beyond C0 (here a C1 control) is refused before the database sees it.
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"type":"a\u0092"}"#,
            status: .unprocessableContent, field: "type"),
        Case(
            method: .post, path: "/api/v1/notifications",
            body: #"{"userIds":["u1"],"alert":{"body":"hi"},"sound":null}"#,
            status: .unprocessableContent, field: "sound"),
        Case(
            method: .post, path: "/api/v1/notifications", body: #"{"userIds":["u1"],"badge":2147483648}"#,
            status: .unprocessableContent, field: "badge"),
        Case(
            method: .get, path: "/api/v1/logs?cursor=12345678901234567_00000000-0000-0000-0000-000000000000",
            status: .unprocessableContent, field: "cursor"),
        Case(method: .get, path: "/api/v1/stats?window=01h", status: .unprocessableContent, field: "window"),
        Case(method: .get, path: "/api/v1/stats?window=%2B1h", status: .unprocessableContent, field: "window"),
    ]

    @Test(arguments: cases) func refusedNamingWhereAndNeverA500(_ item: Case) async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(item.method, item.path, headers: harness.admin(), json: item.body)
            #expect(answer.status == item.status, "\(answer.text)")
            #expect(answer.field == item.field, "\(answer.text)")
        }
    }

    /// A served path with a method it is not served with is a 405 naming the methods the router serves it with; a
    /// path nobody serves is a 404.
    @Test func aWrongMethodOnAServedPathIs405WithAllow() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let wrong = try await api.call(.patch, "/api/v1/users/u1", headers: harness.admin())
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.error == "method_not_allowed")
            #expect(wrong.headers[.allow] == "DELETE, PUT")
            let stats = try await api.call(.post, "/api/v1/stats", headers: harness.admin())
            #expect(stats.status == .methodNotAllowed && stats.headers[.allow] == "GET")
            // The router takes the literal `register` over `{deviceId}`, so DELETE is not served here.
            let register = try await api.call(.delete, "/api/v1/devices/register", headers: harness.admin())
            #expect(register.status == .methodNotAllowed && register.headers[.allow] == "POST")
            #expect(try await api.call(.get, "/api/v1/nowhere", headers: harness.admin()).status == .notFound)
        }
    }

    /// An id may hold `@` and `:`, which clients percent-encode in a path; the encoded form names the same user.
    @Test func percentEncodedIDsInPathsAreTheIDs() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let created = try await api.call(
                .put, "/api/v1/users/ada%40example.com", headers: harness.admin(),
                json: #"{"email":"ada@example.com","name":"Ada"}"#)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json?["id"]?.stringValue == "ada@example.com")
            let deleted = try await api.call(.delete, "/api/v1/users/ada@example.com", headers: harness.admin())
            #expect(deleted.status == .noContent)
        }
    }
}
