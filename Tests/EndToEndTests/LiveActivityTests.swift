import APNsCore
import APNsMock
import Foundation
import FoundationNetworking
import HeraldCore
import HeraldTesting
import Testing

extension Networked {
    /// Live Activities through `herald serve` to `apns-mock`: a remote start reaches the device's push-to-start
    /// token with Apple's start payload and headers, update and end reach the activity's token, a token Apple calls
    /// dead is deactivated, an ended activity takes no more events, a widgets push is the reload flag alone, and every
    /// push type but alert and background reaches the device's token of its service.
    @Suite struct LiveActivityTests {
        typealias Serve = HeraldServeDeliveryTests

        @Test func aRemoteStartThenUpdatesAndTheEndReachTheRightTokens() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Serve.startGateway(harness, keyFile: keyFile)
            let (server, base, key) = (gateway.server, gateway.base, gateway.key)
            defer { if server.process.isRunning { server.process.terminate() } }
            func call(_ method: String, _ path: String, acting: Bool = false, _ body: String? = nil) async throws
                -> (Int, String)
            {
                try await Serve.request(method, base + path, key: key, user: acting ? "ann" : nil, body: body)
            }

            #expect(try await call("PUT", "/users/ann", #"{"email":"ann@example.com","name":"Ann"}"#).0 == 201)
            let deviceToken = EngineHarness.token("1a", 1)
            let registered = try await call(
                "POST", "/devices/register", acting: true,
                #"{"token":"\#(deviceToken)","platform":"iOS","environment":"sandbox"}"#)
            let device = try #require(Self.field("id", in: registered.1))
            let oldStart = EngineHarness.token("2b", 1)
            let pushToStart = EngineHarness.token("2b", 2)
            let first = try await call(
                "POST", "/devices/\(device)/push-to-start-tokens", acting: true,
                #"{"attributesType":"DeliveryAttributes","token":"\#(oldStart)"}"#)
            #expect(first.0 == 201, "\(first.1)")
            let replaced = try await call(
                "POST", "/devices/\(device)/push-to-start-tokens", acting: true,
                #"{"attributesType":"DeliveryAttributes","token":"\#(pushToStart)"}"#)
            #expect(replaced.0 == 200 && !replaced.1.contains(pushToStart), "\(replaced.1)")

            let started = try await call(
                "POST", "/activities",
                #"""
                {"userIds":["ann"],"attributesType":"DeliveryAttributes","attributes":{"orderId":"42"},
                 "contentState":{"status":"packing","eta":15},"alert":{"title":"Order 42","body":"Packing"},
                 "relevanceScore":50,"inputPushToken":true}
                """#)
            #expect(started.0 == 202, "\(started.1)")
            let start = try await Self.request(to: pushToStart, in: harness)
            #expect(start.header("apns-push-type") == "liveactivity")
            #expect(start.header("apns-topic") == EngineHarness.bundleID + ".push-type.liveactivity")
            #expect(start.header("apns-priority") == "5", "priority 10 only when asked")
            let startAPS = try Self.aps(start)
            #expect(startAPS["event"] == .string("start"))
            #expect(startAPS["attributes-type"] == .string("DeliveryAttributes"))
            #expect(startAPS["attributes"] == .object(["orderId": .string("42")]))
            #expect(startAPS["content-state"] == .object(["status": .string("packing"), "eta": .int(15)]))
            #expect(startAPS["alert"] == .object(["title": .string("Order 42"), "body": .string("Packing")]))
            #expect(startAPS["relevance-score"] == .int(50) || startAPS["relevance-score"] == .double(50))
            #expect(startAPS["input-push-token"] == .int(1))
            if case .int(let stamp) = startAPS["timestamp"] {
                #expect(abs(Double(stamp) - Date().timeIntervalSince1970) < 120)
            } else {
                Issue.record("no integer timestamp: \(startAPS)")
            }
            let tokensReached = Set(harness.sandbox.recordedRequests.compactMap(\.deviceToken))
            #expect(!tokensReached.contains(oldStart) && !tokensReached.contains(deviceToken))

            let activityToken = EngineHarness.token("3c", 1)
            let reported = try await call(
                "PUT", "/activities/order-42", acting: true,
                #"{"deviceId":"\#(device)","attributesType":"DeliveryAttributes","token":"\#(activityToken)"}"#)
            #expect(reported.0 == 201 && !reported.1.contains(activityToken), "\(reported.1)")
            let updated = try await call(
                "POST", "/activities/order-42/events",
                #"{"event":"update","contentState":{"status":"shipped","eta":5},"priority":10}"#)
            #expect(updated.0 == 202, "\(updated.1)")
            let update = try await Self.request(to: activityToken, in: harness)
            #expect(update.header("apns-priority") == "10")
            #expect(update.header("apns-topic") == EngineHarness.bundleID + ".push-type.liveactivity")
            let updateAPS = try Self.aps(update)
            #expect(updateAPS["event"] == .string("update"))
            #expect(updateAPS["content-state"] == .object(["status": .string("shipped"), "eta": .int(5)]))
            #expect(updateAPS["attributes-type"] == nil && updateAPS["alert"] == nil)

            // Apple calls the token dead when the activity ends: it is deactivated, and the activity takes no more.
            harness.sandbox.script(
                deviceTokenPrefix: "3c",
                .reject(status: 410, reason: "Unregistered", timestamp: Int64(Date().timeIntervalSince1970 * 1000)))
            let ended = try await call(
                "POST", "/activities/order-42/events",
                #"{"event":"end","contentState":{"status":"delivered","eta":0},"dismissalDate":"2020-01-01T00:00:00Z"}"#
            )
            #expect(ended.0 == 202, "\(ended.1)")
            let end = try await Self.request(to: activityToken, in: harness, number: 2)
            let endAPS = try Self.aps(end)
            #expect(endAPS["event"] == .string("end") && endAPS["dismissal-date"] == .int(1_577_836_800))
            var afterDeath = (0, "")
            for _ in 0..<100 {
                afterDeath = try await call(
                    "POST", "/activities/order-42/events", #"{"event":"update","contentState":{"status":"late"}}"#)
                if afterDeath.0 == 404 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(afterDeath.0 == 404, "\(afterDeath.1)")

            // An activity the app reports ended takes no more events either.
            let other = EngineHarness.token("4d", 1)
            #expect(
                try await call(
                    "PUT", "/activities/order-43", acting: true,
                    #"{"deviceId":"\#(device)","attributesType":"DeliveryAttributes","token":"\#(other)"}"#
                ).0 == 201)
            #expect(try await call("DELETE", "/activities/order-43", acting: true).0 == 204)
            #expect(try await call("DELETE", "/activities/order-43", acting: true).0 == 204, "ending is idempotent")
            #expect(
                try await call("POST", "/activities/order-43/events", #"{"event":"update","contentState":{}}"#).0
                    == 404)
            #expect(try await call("DELETE", "/activities/nothing-here", acting: true).0 == 404)

            // Every push type but alert and background goes to the device's token of that service.
            var serviceTokens: [String: String] = [:]
            for (index, kind) in ServiceTokenKind.allCases.enumerated() {
                let token = EngineHarness.token("5e", index + 1)
                let put = try await call(
                    "PUT", "/devices/\(device)/push-tokens/\(kind.rawValue)", acting: true, #"{"token":"\#(token)"}"#)
                #expect(put.0 == 201, "\(kind): \(put.1)")
                serviceTokens[kind.rawValue] = token
            }
            let widgets = try await call("POST", "/notifications", #"{"userIds":["ann"],"pushType":"widgets"}"#)
            #expect(widgets.0 == 202, "\(widgets.1)")
            let reload = try await Self.request(to: try #require(serviceTokens["widgets"]), in: harness)
            #expect(reload.header("apns-push-type") == "widgets")
            #expect(reload.header("apns-topic") == EngineHarness.bundleID + ".push-type.widgets")
            #expect(String(decoding: reload.body, as: UTF8.self) == #"{"aps":{"content-changed":true}}"#)

            // Every other push type reaches the mock on its own topic suffix, with the priority asked for.
            let suffixes = [
                "alert": "", "background": "", "voip": ".voip", "complication": ".complication",
                "fileprovider": ".pushkit.fileprovider", "location": ".location-query", "pushtotalk": ".voip-ptt",
                "controls": ".push-type.controls",
            ]
            for (type, suffix) in suffixes.sorted(by: { $0.key < $1.key }) {
                let target = serviceTokens[type] ?? deviceToken
                let before = harness.sandbox.recordedRequests.filter { $0.deviceToken == target }.count
                let content = type == "controls" ? "" : #","contentAvailable":true,"alert":{"body":"x"}"#
                let sent = try await call(
                    "POST", "/notifications", #"{"userIds":["ann"],"pushType":"\#(type)","priority":5\#(content)}"#)
                #expect(sent.0 == 202, "\(type): \(sent.1)")
                let arrived = try await Self.request(to: target, in: harness, number: before + 1)
                #expect(arrived.header("apns-push-type") == type)
                #expect(arrived.header("apns-topic") == EngineHarness.bundleID + suffix, "\(type)")
                #expect(arrived.header("apns-priority") == "5")
                if case .accept = arrived.verdict {} else { Issue.record("\(type): \(arrived.verdict)") }
            }

            let mdm = try await call("POST", "/notifications", #"{"userIds":["ann"],"pushType":"mdm"}"#)
            #expect(mdm.0 == 422 && mdm.1.contains("certificate"), "\(mdm.1)")
            _ = await server.stop()
            try await harness.stop()
        }

        /// The `number`th request the mock recorded for `token`, waiting for it.
        static func request(to token: String, in harness: EngineHarness, number: Int = 1) async throws
            -> MockRecordedRequest
        {
            for _ in 0..<300 {
                let reached = harness.sandbox.recordedRequests.filter { $0.deviceToken == token }
                if reached.count >= number { return reached[number - 1] }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw CancellationError()
        }

        static func aps(_ request: MockRecordedRequest) throws -> [String: JSONValue] {
            let payload = try JSONDecoder().decode(JSONValue.self, from: Data(request.body))
            guard case .object(let members) = payload, case .object(let aps)? = members["aps"] else {
                throw CancellationError()
            }
            return aps
        }

        static func field(_ name: String, in json: String) -> String? {
            guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else {
                return nil
            }
            return members[name]?.stringValue
        }
    }
}
