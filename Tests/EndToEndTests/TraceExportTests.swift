import APNsMock
import Foundation
import HeraldTesting
import LocalServices
import Testing

extension Networked {
    /// Tracing as an operator turns it on: `herald serve --no-deliver` and `herald worker`, two processes, export to
    /// an OTLP/HTTP collector, and a push's spans join the trace its caller started.
    @Suite struct TraceExportTests {
        typealias Serve = HeraldServeDeliveryTests

        /// The spans of every OTLP/JSON export the collector received, by name, with their trace and parent.
        struct ExportedSpan: Hashable {
            let name: String
            let traceID: String
            let spanID: String
            let parentSpanID: String
        }

        static func spans(in collector: RecordingHTTPServer) -> [ExportedSpan] {
            collector.requests.filter { $0.path == "/v1/traces" }.flatMap { request -> [ExportedSpan] in
                guard let export = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
                    return []
                }
                let resources = export["resourceSpans"] as? [[String: Any]] ?? []
                let scopes = resources.flatMap { $0["scopeSpans"] as? [[String: Any]] ?? [] }
                return scopes.flatMap { $0["spans"] as? [[String: Any]] ?? [] }.map { span in
                    ExportedSpan(
                        name: span["name"] as? String ?? "", traceID: hex(span["traceId"]), spanID: hex(span["spanId"]),
                        parentSpanID: hex(span["parentSpanId"]))
                }
            }
        }

        /// An id as hex digits: OTLP/JSON writes ids in hex, protobuf's JSON mapping of bytes in base64.
        static func hex(_ value: Any?) -> String {
            guard let text = value as? String, !text.isEmpty else { return "" }
            if text.allSatisfy(\.isHexDigit), text.count % 2 == 0 { return text.lowercased() }
            return Data(base64Encoded: text)?.map { String(format: "%02x", $0) }.joined() ?? text
        }

        @Test func aPushSentByAWorkerJoinsTheTraceOfTheRequestServedByAnotherProcess() async throws {
            let harness = try await EngineHarness.start()
            let collector = try await RecordingHTTPServer.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.url("").absoluteString
            environment["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/json"
            environment["OTEL_BSP_SCHEDULE_DELAY"] = "100"
            let created = try await BuiltProgram.herald.run(
                ["keys", "create", "--name", "traces", "--scope", "admin"], environment: environment)
            let key = try #require(created.output.split(separator: "\n").first.map(String.init))
            let server = try BuiltProgram.herald.start(
                ["serve", "--port", "0", "--no-deliver"], environment: environment)
            defer { if server.process.isRunning { server.process.terminate() } }
            let worker = try BuiltProgram.herald.start(["worker"], environment: environment)
            defer { if worker.process.isRunning { worker.process.terminate() } }
            let base = "http://127.0.0.1:\(try await server.servingPort())/api/v1"

            let user = try await Serve.request(
                "PUT", "\(base)/users/ada", key: key, body: #"{"email":"ada@example.com","name":"Ada"}"#)
            #expect(user.0 == 201, "\(user.1)")
            let token = EngineHarness.token("7a", 1)
            let registered = try await Serve.request(
                "POST", "\(base)/devices/register", key: key, user: "ada",
                body: #"{"token":"\#(token)","platform":"iOS","environment":"sandbox"}"#)
            #expect(registered.0 == 201, "\(registered.1)")
            // The caller's own trace, as a backend instrumented with OpenTelemetry sends it.
            let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
            let callerSpan = "00f067aa0ba902b7"
            let sent = try await Serve.request(
                "POST", "\(base)/notifications", key: key, body: #"{"userIds":["ada"],"alert":{"title":"Traced"}}"#,
                headers: ["traceparent": "00-\(traceID)-\(callerSpan)-01"])
            #expect(sent.0 == 202, "\(sent.1)")

            let names: Set<String> = [
                "/api/v1/notifications", "herald.accept", "herald.expand", "herald.deliver", "herald.claim",
                "herald.apns.batch", "herald.record",
            ]
            let deadline = ContinuousClock.now + .seconds(30)
            var trace: [ExportedSpan] = []
            while ContinuousClock.now < deadline {
                trace = Self.spans(in: collector).filter { $0.traceID == traceID }
                if names.isSubset(of: Set(trace.map(\.name))) { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(
                names.isSubset(of: Set(trace.map(\.name))),
                "\(trace.map(\.name)) of \(collector.requests.map(\.path))\n\(server.output)\n\(worker.output)")
            let request = try #require(trace.first { $0.name == "/api/v1/notifications" })
            #expect(request.parentSpanID == callerSpan, "the request's span continues the caller's")
            let accept = try #require(trace.first { $0.name == "herald.accept" })
            #expect(trace.first { $0.name == "herald.deliver" }?.parentSpanID == accept.spanID)
            #expect(harness.sandbox.recordedRequests.count == 1)

            // Log lines about the request carry its trace; no device token goes to the collector.
            #expect(server.output.contains("trace_id=\(traceID)"), "\(server.output)")
            #expect(!collector.requests.contains { String(decoding: $0.body, as: UTF8.self).contains(token) })

            #expect(await worker.stop() == 0, "\(worker.output)")
            #expect(await server.stop() == 0, "\(server.output)")
            try await collector.stop()
            try await harness.stop()
        }
    }
}
