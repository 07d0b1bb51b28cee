import Foundation
import HeraldClient
import MailNotifier
import Testing

@Suite("HeraldConnection against a local HTTP/1.1 server", .timeLimit(.minutes(1)))
struct HeraldConnectionTests {
    static let accepted = TestHTTPReply.respond(status: 202, body: #"{"id":"7f1c2a9e-0000-4000-8000-000000000001"}"#)

    func client(_ server: TestHTTPServer, timeout: Duration = .seconds(5)) -> HeraldConnection {
        HeraldConnection(
            configuration: HeraldClientConfiguration(
                baseURL: server.baseURL, apiKey: APIKey("test-key-123"), timeout: timeout))
    }

    @Test func bannerIsPostedWithMethodPathHeadersAndJSON() async throws {
        let server = try TestHTTPServer { _ in Self.accepted }
        defer { server.stop() }
        let center = HeraldNotificationCenter(client: client(server), userId: "owner-1")
        let email = makeEmail(
            "E-1", thread: "T-7", account: "acct-9", from: "john@example.com", name: "John Doe",
            subject: "Meeting Tomorrow", snippet: "Hi team")
        try await center.add(NotificationContentBuilder.build(from: email))

        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/api/v1/notifications")
        #expect(request.headers["authorization"] == "Bearer test-key-123")
        #expect(request.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(request.headers["idempotency-key"] == "email-E-1")
        let json = request.json
        #expect(json["userIds"] as? [String] == ["owner-1"])
        #expect(json["type"] as? String == "email", "the type the interactions of email banners are listed by")
        #expect(
            json["alert"] as? [String: String] == [
                "title": "John Doe", "subtitle": "Meeting Tomorrow", "body": "Hi team",
            ])
        #expect(json["sound"] as? String == "default")
        #expect(json["category"] as? String == "EMAIL_NOTIFICATION")
        #expect(json["threadId"] as? String == "T-7")
        #expect(json["pushType"] as? String == "alert")
        #expect(json["priority"] as? Int == 10)
        #expect(json["collapseId"] as? String == "email-E-1")
        #expect(
            json["data"] as? [String: String] == [
                "emailId": "E-1", "threadId": "T-7", "accountId": "acct-9", "fromAddress": "john@example.com",
                "notificationId": "email-E-1",
            ])
        #expect(json["badge"] == nil)
    }

    @Test func acceptedAnswerGivesHeraldsId() async throws {
        let server = try TestHTTPServer { _ in Self.accepted }
        defer { server.stop() }
        let id = try await client(server).send(DirectSend(userIds: ["u"]))
        #expect(id.rawValue == "7f1c2a9e-0000-4000-8000-000000000001")
    }

    @Test func badgeUpdateIsABadgeOnlyAlertPush() async throws {
        let server = try TestHTTPServer { _ in Self.accepted }
        defer { server.stop() }
        try await HeraldNotificationCenter(client: client(server), userId: "owner-1").setBadgeCount(42)
        let json = try #require(server.requests.first).json
        #expect(json["badge"] as? Int == 42)
        #expect(json["pushType"] as? String == "alert")
        #expect(json["alert"] == nil)
        #expect(json["sound"] == nil)
        #expect(json["userIds"] as? [String] == ["owner-1"])
    }

    @Test func removalIsABackgroundPushNamingTheIdentifiers() async throws {
        let server = try TestHTTPServer { _ in Self.accepted }
        defer { server.stop() }
        try await HeraldNotificationCenter(client: client(server), userId: "owner-1")
            .removeDeliveredNotifications(withIdentifiers: [
                NotificationRequestID(emailId: "a"), NotificationRequestID(emailId: "b"),
            ])
        let json = try #require(server.requests.first).json
        #expect(json["pushType"] as? String == "background")
        #expect(json["priority"] as? Int == 5)
        #expect(json["contentAvailable"] as? Bool == true)
        #expect(json["alert"] == nil)
        #expect((json["data"] as? [String: [String]])?["removeNotificationIds"] == ["email-a", "email-b"])
    }

    @Test func rejectionCarriesStatusCodeAndField() async throws {
        let server = try TestHTTPServer { _ in
            .respond(status: 422, body: #"{"error":"invalid_collapse_id","message":"too long","field":"collapseId"}"#)
        }
        defer { server.stop() }
        await #expect(
            throws: HeraldError.rejected(
                status: 422, code: "invalid_collapse_id", message: "too long", field: "collapseId")
        ) {
            try await client(server).send(DirectSend(userIds: ["u"]))
        }
    }

    @Test func rejectionWithoutJSONBodyStillHasTheStatus() async throws {
        let server = try TestHTTPServer { _ in .respond(status: 503, body: "overloaded") }
        defer { server.stop() }
        await #expect(throws: HeraldError.rejected(status: 503, code: "http-503", message: "overloaded", field: nil)) {
            try await client(server).send(DirectSend(userIds: ["u"]))
        }
    }

    @Test func closedPortIsUnreachable() async throws {
        let closed = try ClosedPort()
        let connection = HeraldConnection(
            configuration: HeraldClientConfiguration(baseURL: closed.url, apiKey: APIKey("k"), timeout: .seconds(5)))
        do {
            try await connection.send(DirectSend(userIds: ["u"]))
            Issue.record("expected an error")
        } catch {
            #expect(error == .unreachable(reason: "connection refused"))
        }
    }

    @Test func silentGatewayTimesOutAndTheEmailIsNotMarkedDelivered() async throws {
        let server = try TestHTTPServer { _ in .neverAnswer }
        defer { server.stop() }
        let timeout = Duration.milliseconds(300)
        let center = HeraldNotificationCenter(client: client(server, timeout: timeout), userId: "owner-1")
        let service = NotificationService(
            center: center, settings: { NotificationSettings() }, mailbox: FixedMailbox(count: 1), now: { noon })
        await service.markFirstLaunchComplete()
        let started = ContinuousClock.now
        let report = await service.processNewEmails([makeEmail("slow")], fromBackground: false, activeFolderType: nil)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(report.decision(for: "slow")?.reason == .deliveryFailed(.timeout(after: timeout)))
        #expect(report.badge == .failed(count: 1, error: .timeout(after: timeout)))
        #expect(await !service.hasDelivered("slow"))
    }

    @Test func requestWithoutTargetIsRefusedLocally() async throws {
        let server = try TestHTTPServer { _ in Self.accepted }
        defer { server.stop() }
        await #expect(throws: HeraldError.self) {
            try await client(server).send(DirectSend())
        }
        #expect(server.requests.isEmpty)
    }

    @Test func apiKeyNeverAppearsInDescriptions() {
        let key = APIKey("super-secret")
        #expect(!"\(key)".contains("super-secret"))
        #expect(!String(reflecting: key).contains("super-secret"))
    }
}
