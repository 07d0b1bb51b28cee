import Foundation
import MailNotifier
import Testing

@Suite("HeraldConnection lists interactions", .timeLimit(.minutes(1)))
struct HeraldConnectionInteractionsTests {
    static let page = """
        {"items": [
          {"id": "0b6e3f5c-0000-4000-8000-000000000001", "notificationId": "7f1c2a9e-0000-4000-8000-000000000001",
           "deviceId": "5d1e0c3b-0000-4000-8000-000000000001", "userId": "owner-1", "appId": "mail-app",
           "action": "REPLY_ACTION", "text": "See you there", "type": "email", "tags": ["inbox", "vip"],
           "data": {"emailId": "E-1", "threadId": "T-7", "score": 0.5, "count": 3, "flags": {"pinned": true}},
           "collapseId": "email-E-1", "createdAt": "2026-11-26T18:00:00.123Z"},
          {"id": "0b6e3f5c-0000-4000-8000-000000000002", "notificationId": "7f1c2a9e-0000-4000-8000-000000000001",
           "deviceId": "5d1e0c3b-0000-4000-8000-000000000001", "userId": "owner-1", "appId": null,
           "action": "dismissed", "text": null, "type": "email", "tags": [], "data": {},
           "collapseId": null, "createdAt": "2026-11-26T18:00:01Z"}
        ], "nextCursor": "c2", "hasMore": true}
        """

    func client(_ url: URL) -> HeraldConnection {
        HeraldConnection(
            configuration: HeraldClientConfiguration(baseURL: url, apiKey: APIKey("test-key-123"), timeout: .seconds(5))
        )
    }

    @Test func aPageDecodesIntoTypedInteractions() async throws {
        let server = try TestHTTPServer { _ in .respond(status: 200, body: Self.page) }
        defer { server.stop() }
        let page = try await client(server.baseURL).interactions(InteractionQuery())

        #expect(page.nextCursor == "c2")
        #expect(page.hasMore)
        #expect(page.items.count == 2)
        let reply = try #require(page.items.first)
        #expect(reply.id == "0b6e3f5c-0000-4000-8000-000000000001")
        #expect(reply.notificationId == HeraldNotificationID(rawValue: "7f1c2a9e-0000-4000-8000-000000000001"))
        #expect(reply.deviceId == "5d1e0c3b-0000-4000-8000-000000000001")
        #expect(reply.userId == "owner-1")
        #expect(reply.appId == "mail-app")
        #expect(reply.action == "REPLY_ACTION")
        #expect(reply.text == "See you there")
        #expect(reply.type == "email")
        #expect(reply.tags == ["inbox", "vip"])
        #expect(
            reply.data == [
                "emailId": "E-1", "threadId": "T-7", "score": .double(0.5), "count": .int(3),
                "flags": .object(["pinned": .bool(true)]),
            ])
        #expect(reply.collapseId == "email-E-1")
        #expect(abs(reply.createdAt.timeIntervalSince1970 - 1_795_716_000.123) < 0.000_5)
        let dismissed = page.items[1]
        #expect(dismissed.action == "dismissed")
        #expect(dismissed.appId == nil && dismissed.text == nil && dismissed.collapseId == nil)
        #expect(dismissed.data.isEmpty && dismissed.tags.isEmpty)
    }

    @Test func theQueryNamesEveryFilterGivenAndEncodesTheCursor() async throws {
        let server = try TestHTTPServer { _ in .respond(status: 200, body: Self.page) }
        defer { server.stop() }
        _ = try await client(server.baseURL).interactions(
            InteractionQuery(
                since: "a+b/c=", userId: "owner 1", type: "email", action: "MARK_READ_ACTION",
                notificationId: HeraldNotificationID(rawValue: "7f1c2a9e-0000-4000-8000-000000000001"), limit: 500))
        _ = try await client(server.baseURL).interactions(InteractionQuery())

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].method == "GET")
        #expect(
            requests[0].path
                == "/api/v1/interactions?since=a%2Bb%2Fc%3D&notificationId=7f1c2a9e-0000-4000-8000-000000000001"
                + "&userId=owner%201&action=MARK_READ_ACTION&type=email&limit=500")
        #expect(requests[0].headers["authorization"] == "Bearer test-key-123")
        #expect(requests[0].headers["accept"] == "application/json")
        #expect(requests[1].path == "/api/v1/interactions", "no filter, no query")
    }

    @Test func aMalformedCursorIsRejectedNamingTheField() async throws {
        let server = try TestHTTPServer { _ in
            .respond(
                status: 400, body: #"{"error":"validation_failed","message":"not a cursor","field":"since"}"#)
        }
        defer { server.stop() }
        await #expect(
            throws: HeraldError.rejected(
                status: 400, code: "validation_failed", message: "not a cursor", field: "since")
        ) {
            try await client(server.baseURL).interactions(InteractionQuery(since: "garbage"))
        }
    }

    @Test func withoutCredentialsTheStatusIsKept() async throws {
        let server = try TestHTTPServer { _ in .respond(status: 401, body: "") }
        defer { server.stop() }
        await #expect(throws: HeraldError.rejected(status: 401, code: "http-401", message: "", field: nil)) {
            try await client(server.baseURL).interactions(InteractionQuery())
        }
    }

    @Test(arguments: [
        #"{"items": [], "hasMore": false}"#,
        #"{"items": [{"id": "x"}], "nextCursor": "c", "hasMore": false}"#,
        #"[]"#,
    ])
    func aSuccessThatIsNotAPageIsAnInvalidResponse(body: String) async throws {
        let server = try TestHTTPServer { _ in .respond(status: 200, body: body) }
        defer { server.stop() }
        do {
            _ = try await client(server.baseURL).interactions(InteractionQuery())
            Issue.record("expected an error")
        } catch {
            guard case .invalidResponse(200, _) = error else {
                Issue.record("expected invalidResponse, got \(error)")
                return
            }
        }
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let closed = try ClosedPort()
        await #expect(throws: HeraldError.unreachable(reason: "connection refused")) {
            try await client(closed.url).interactions(InteractionQuery())
        }
    }
}
