import APNs
import APNsCore
import APNsMock
import Foundation
import FoundationNetworking
import Glibc
import HeraldCore
import HeraldTesting
import LocalServices
import Postgres
import Testing

extension Networked {
    /// The whole path through the built binary: `herald serve` accepts over HTTP, expands, and its delivery engine
    /// sends to apns-mock over TLS and HTTP/2.
    @Suite struct HeraldServeDeliveryTests {
        static func request(
            _ method: String, _ url: String, key: String, user: String? = nil, body: String? = nil,
            headers: [String: String] = [:]
        ) async throws -> (Int, String) {
            var request = URLRequest(url: URL(string: url)!)
            request.httpMethod = method
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            if let user { request.setValue(user, forHTTPHeaderField: "X-Herald-User") }
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }

        /// A running `herald serve` delivering to the harness's mocks, with an admin API key.
        struct Gateway {
            let server: RunningProgram
            let base: String
            let key: String
        }

        static func startGateway(_ harness: EngineHarness, keyFile: String) async throws -> Gateway {
            let environment = try harness.heraldEnvironment(keyFile: keyFile)
            let created = try await BuiltProgram.herald.run(
                ["keys", "create", "--name", "e2e", "--scope", "admin"], environment: environment)
            #expect(created.status == 0, "\(created.output)")
            let key = try #require(created.output.split(separator: "\n").first.map(String.init))

            let server = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            let port = try await server.servingPort()
            return Gateway(server: server, base: "http://127.0.0.1:\(port)/api/v1", key: key)
        }

        @Test func acceptedNotificationsReachTheMockAsTheRightPushes() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Self.startGateway(harness, keyFile: keyFile)
            let (server, base, key) = (gateway.server, gateway.base, gateway.key)
            defer { if server.process.isRunning { server.process.terminate() } }

            for (user, email) in [("owner", "owner@example.com"), ("member", "member@example.com")] {
                let put = try await Self.request(
                    "PUT", "\(base)/users/\(user)", key: key, body: #"{"email":"\#(email)","name":"\#(user)"}"#)
                #expect(put.0 == 201, "\(put.1)")
            }
            let project = try await Self.request(
                "PUT", "\(base)/projects/app", key: key, body: #"{"name":"App","ownerId":"owner"}"#)
            #expect(project.0 == 201, "\(project.1)")
            #expect(try await Self.request("PUT", "\(base)/projects/app/members/member", key: key).0 < 300)
            let ownerToken = EngineHarness.token("e1", 1)
            let memberToken = EngineHarness.token("e2", 2)
            for (user, token) in [("owner", ownerToken), ("member", memberToken)] {
                let registered = try await Self.request(
                    "POST", "\(base)/devices/register", key: key, user: user,
                    body: #"{"token":"\#(token)","platform":"iOS","environment":"sandbox"}"#)
                #expect(registered.0 == 201, "\(registered.1)")
            }

            let direct = try await Self.request(
                "POST", "\(base)/notifications", key: key,
                body: #"{"userIds":["member"],"alert":{"title":"Hello","body":"From Herald"},"data":{"build":"42"}}"#)
            #expect(direct.0 == 202, "\(direct.1)")
            let event = try await Self.request(
                "POST", "\(base)/events", key: key,
                body:
                    #"{"type":"new_feedback","projectId":"app","feedback":{"id":"f-1","title":"Dark mode"},"#
                    + #""actorId":"owner"}"#
            )
            #expect(event.0 == 202, "\(event.1)")

            let deadline = ContinuousClock.now + .seconds(30)
            while harness.sandbox.recordedRequests.count < 2 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let pushes = harness.sandbox.recordedRequests
            #expect(pushes.count == 2, "\(server.output)")
            #expect(
                pushes.allSatisfy { $0.deviceToken == memberToken }, "the actor gets nothing about their own action")
            let bodies = pushes.map { String(decoding: $0.body, as: UTF8.self) }
            #expect(bodies.contains { $0.contains(#""title":"Hello""#) && $0.contains(#""build":"42""#) })
            #expect(bodies.contains { $0.contains(#""title":"New Feedback""#) && $0.contains(#""body":"Dark mode""#) })
            for push in pushes {
                let headers = Dictionary(push.headers.map { ($0.name, $0.value) }) { first, _ in first }
                #expect(headers["apns-topic"] == EngineHarness.bundleID)
                #expect(headers["apns-push-type"] == "alert")
                // An event's push expires at once; a direct send without an expiration leaves Apple's default.
                let isEvent = String(decoding: push.body, as: UTF8.self).contains("New Feedback")
                #expect(headers["apns-expiration"] == (isEvent ? "0" : nil))
            }

            #expect(await server.stop() == 0, "\(server.output)")
            #expect(!server.output.contains(memberToken), "no device token in the log")
            try await harness.stop()
        }

        /// A direct send's localization keys, critical sound, relevance score, target content id and filter criteria
        /// reach Apple under Apple's names.
        @Test func theWholeApsDictionaryReachesTheMock() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Self.startGateway(harness, keyFile: keyFile)
            let (server, base, key) = (gateway.server, gateway.base, gateway.key)
            defer { if server.process.isRunning { server.process.terminate() } }
            let put = try await Self.request(
                "PUT", "\(base)/users/ada", key: key, body: #"{"email":"ada@example.com","name":"Ada"}"#)
            #expect(put.0 == 201, "\(put.1)")
            let registered = try await Self.request(
                "POST", "\(base)/devices/register", key: key, user: "ada",
                body: #"{"token":"\#(EngineHarness.token("e3", 3))","platform":"iOS","environment":"sandbox"}"#)
            #expect(registered.0 == 201, "\(registered.1)")
            let sent = try await Self.request(
                "POST", "\(base)/notifications", key: key,
                body: #"""
                    {"userIds":["ada"],"alert":{"titleLocKey":"GAME_TITLE","titleLocArgs":["Ada"],
                    "subtitleLocKey":"GAME_SUB","subtitleLocArgs":["2"],"locKey":"GAME_BODY","locArgs":["3","4"],
                    "launchImage":"Splash"},"sound":{"critical":1,"name":"alarm.caf","volume":0.5},
                    "relevanceScore":0.75,"targetContentId":"game-7","filterCriteria":"work"}
                    """#)
            #expect(sent.0 == 202, "\(sent.1)")
            let deadline = ContinuousClock.now + .seconds(30)
            while harness.sandbox.recordedRequests.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let push = try #require(harness.sandbox.recordedRequests.first, "\(server.output)")
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(push.body)) as? [String: Any])
            let aps = try #require(payload["aps"] as? [String: Any])
            let alert = try #require(aps["alert"] as? [String: Any])
            #expect(alert["title-loc-key"] as? String == "GAME_TITLE")
            #expect(alert["title-loc-args"] as? [String] == ["Ada"])
            #expect(alert["subtitle-loc-key"] as? String == "GAME_SUB")
            #expect(alert["subtitle-loc-args"] as? [String] == ["2"])
            #expect(alert["loc-key"] as? String == "GAME_BODY")
            #expect(alert["loc-args"] as? [String] == ["3", "4"])
            #expect(alert["launch-image"] as? String == "Splash")
            let sound = try #require(aps["sound"] as? [String: Any])
            #expect(sound["critical"] as? Int == 1 && sound["name"] as? String == "alarm.caf")
            #expect(sound["volume"] as? Double == 0.5)
            #expect(aps["relevance-score"] as? Double == 0.75)
            #expect(aps["target-content-id"] as? String == "game-7")
            #expect(aps["filter-criteria"] as? String == "work")
            #expect(await server.stop() == 0, "\(server.output)")
            try await harness.stop()
        }
    }
}
