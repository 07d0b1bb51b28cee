import APNs
import APNsCore
import APNsMock
import Foundation
import FoundationNetworking
import Glibc
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// Monitoring and scheduling over HTTP against the built `herald serve` with its engine sending to apns-mock:
    /// a test push is delivered and shows up in the log, the delivery view, the stats and `/metrics`; a canceled
    /// scheduled push never reaches the mock.
    @Suite struct HeraldServeMonitoringTests {
        typealias Serve = HeraldServeDeliveryTests

        static func json(_ text: String) -> HeraldCore.JSONValue? {
            try? JSONDecoder().decode(HeraldCore.JSONValue.self, from: Data(text.utf8))
        }

        @Test func aTestPushIsSentAndObservedAndACanceledOneIsNot() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Serve.startGateway(harness, keyFile: keyFile)
            let (server, base, key) = (gateway.server, gateway.base, gateway.key)
            defer { if server.process.isRunning { server.process.terminate() } }

            let put = try await Serve.request(
                "PUT", "\(base)/users/ann", key: key, body: #"{"email":"ann@example.com","name":"Ann"}"#)
            #expect(put.0 == 201, "\(put.1)")
            let token = EngineHarness.token("d1", 1)
            let registered = try await Serve.request(
                "POST", "\(base)/devices/register", key: key, user: "ann",
                body: #"{"token":"\#(token)","platform":"iOS","environment":"sandbox"}"#)
            let device = try #require(Self.json(registered.1)?["id"]?.stringValue, "\(registered.1)")

            let test = try await Serve.request("POST", "\(base)/devices/\(device)/test", key: key, user: "ann")
            #expect(test.0 == 202, "\(test.1)")
            let id = try #require(Self.json(test.1)?["id"]?.stringValue)
            let later = ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: 2))
            let scheduled = try await Serve.request(
                "POST", "\(base)/notifications", key: key,
                body: #"{"userIds":["ann"],"alert":{"body":"never"},"sendAt":"\#(later)"}"#)
            let scheduledID = try #require(Self.json(scheduled.1)?["id"]?.stringValue)
            let canceled = try await Serve.request("DELETE", "\(base)/notifications/\(scheduledID)", key: key)
            #expect(canceled.0 == 200, "\(canceled.1)")

            var answers: [String] = []
            var sent = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !sent && ContinuousClock.now < deadline {
                let view = try await Serve.request("GET", "\(base)/notifications/\(id)/deliveries", key: key)
                if case .array(let deliveries)? = Self.json(view.1)?["deliveries"],
                    deliveries.first?["state"] == .string("sent")
                {
                    sent = true
                    answers.append(view.1)
                } else {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(sent, "\(server.output)")
            #expect(harness.sandbox.recordedRequests.count == 1)
            #expect(harness.sandbox.recordedRequests.first?.deviceToken == token)

            let logs = try await Serve.request("GET", "\(base)/logs?userId=ann&status=sent", key: key)
            #expect(logs.0 == 200)
            if case .array(let items)? = Self.json(logs.1)?["items"] {
                #expect(items.count == 1)
                #expect(items.first?["notificationId"] == .string(id))
            } else {
                Issue.record("no items in \(logs.1)")
            }
            let stats = try await Serve.request("GET", "\(base)/stats?window=1h", key: key)
            #expect(stats.1.contains(#""type":"test""#), "\(stats.1)")
            #expect(stats.1.contains(#""successRate":1"#), "\(stats.1)")
            let root = String(base.dropLast("/api/v1".count))
            // Scrapers send no credentials.
            let (metricsData, _) = try await URLSession.shared.data(from: URL(string: "\(root)/metrics")!)
            let metrics = (200, String(decoding: metricsData, as: UTF8.self))
            #expect(metrics.1.contains("herald_delivery_engine_running 1.0\n"))
            // A test push goes in the immediate lane.
            #expect(metrics.1.contains(#"herald_deliveries_sent_total{lane="immediate"} 1"# + "\n"), "\(metrics.1)")
            #expect(metrics.1.contains(#"herald_apns_latency_seconds_count{lane="immediate"} 1"# + "\n"))
            answers += [logs.1, stats.1, metrics.1]

            // The canceled push was due two seconds after it was accepted; give it time to go wrong.
            try await Task.sleep(for: .seconds(3))
            #expect(harness.sandbox.recordedRequests.count == 1)
            let status = try await Serve.request("GET", "\(base)/notifications/\(scheduledID)", key: key)
            #expect(Self.json(status.1)?["state"] == .string("canceled"))

            #expect(await server.stop() == 0, "\(server.output)")
            for answer in answers + [server.output] { #expect(!answer.contains(token)) }
            try await harness.stop()
        }
    }
}
