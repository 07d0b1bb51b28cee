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
    /// A scheduled push through the built `herald serve`: rescheduled over HTTP, the server restarted before it
    /// falls due, and it still reaches apns-mock within a second of its new time.
    @Suite struct HeraldServeScheduleTests {
        typealias Serve = HeraldServeDeliveryTests

        @Test func aRescheduledPushSurvivesARestartAndArrivesOnTime() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let first = try await Serve.startGateway(harness, keyFile: keyFile)
            defer { if first.server.process.isRunning { first.server.process.terminate() } }
            let (base, key) = (first.base, first.key)

            let put = try await Serve.request(
                "PUT", "\(base)/users/sam", key: key, body: #"{"email":"sam@example.com","name":"Sam"}"#)
            #expect(put.0 == 201, "\(put.1)")
            let token = EngineHarness.token("5c", 1)
            let registered = try await Serve.request(
                "POST", "\(base)/devices/register", key: key, user: "sam",
                body: #"{"token":"\#(token)","platform":"iOS","environment":"sandbox"}"#)
            #expect(registered.0 == 201, "\(registered.1)")
            let formatter = ISO8601DateFormatter()
            let accepted = try await Serve.request(
                "POST", "\(base)/notifications", key: key,
                body: #"{"userIds":["sam"],"alert":{"body":"first"},"sendAt":"2099-01-01T00:00:00Z"}"#)
            let id = try #require(
                (try? JSONDecoder().decode(HeraldCore.JSONValue.self, from: Data(accepted.1.utf8)))?["id"]?.stringValue)
            // Whole seconds, as the wire format carries them, far enough ahead to restart in between.
            let sendAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 8).rounded(.up))
            let moved = try await Serve.request(
                "PATCH", "\(base)/notifications/\(id)", key: key,
                body: #"{"sendAt":"\#(formatter.string(from: sendAt))","alert":{"body":"moved"}}"#)
            #expect(moved.0 == 200, "\(moved.1)")

            #expect(await first.server.stop() == 0, "\(first.server.output)")
            #expect(harness.sandbox.recordedRequests.isEmpty)
            let second = try await Serve.startGateway(harness, keyFile: keyFile)
            defer { if second.server.process.isRunning { second.server.process.terminate() } }
            #expect(Date() < sendAt, "the restart took too long for this test to mean anything")

            var arrival: Date?
            let deadline = ContinuousClock.now + .seconds(20)
            while arrival == nil && ContinuousClock.now < deadline {
                if !harness.sandbox.recordedRequests.isEmpty {
                    arrival = Date()
                } else {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            let arrived = try #require(arrival, "\(second.server.output)")
            #expect(arrived >= sendAt)
            #expect(arrived.timeIntervalSince(sendAt) <= 1, "\(arrived.timeIntervalSince(sendAt)) s late")
            let pushes = harness.sandbox.recordedRequests
            #expect(pushes.count == 1)
            #expect(pushes.first.map { String(decoding: $0.body, as: UTF8.self).contains(#""body":"moved""#) } == true)

            #expect(await second.server.stop() == 0, "\(second.server.output)")
            try await harness.stop()
        }

        /// Runs `body` against a fresh `herald serve` whose user `sam` has one sandbox device, then stops it.
        static func withSam(
            token prefix: String, _ body: (EngineHarness, Serve.Gateway) async throws -> Void
        ) async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Serve.startGateway(harness, keyFile: keyFile)
            defer { if gateway.server.process.isRunning { gateway.server.process.terminate() } }
            _ = try await Serve.request(
                "PUT", "\(gateway.base)/users/sam", key: gateway.key, body: #"{"email":"sam@example.com","name":"Sam"}"#
            )
            let registered = try await Serve.request(
                "POST", "\(gateway.base)/devices/register", key: gateway.key, user: "sam",
                body: #"{"token":"\#(EngineHarness.token(prefix, 1))","platform":"iOS","environment":"sandbox"}"#)
            #expect(registered.0 == 201, "\(registered.1)")
            try await body(harness, gateway)
            #expect(await gateway.server.stop() == 0, "\(gateway.server.output)")
            try await harness.stop()
        }

        /// Quiet hours that end at the next minute: a push sent inside them reaches apns-mock at the window's end,
        /// not before, and not much after (the engine looks for due deliveries every second).
        @Test func aPushInsideQuietHoursArrivesAtTheWindowsEnd() async throws {
            try await Self.withSam(token: "7e") { harness, gateway in
                let (base, key) = (gateway.base, gateway.key)
                // The window ends at the next full minute; leave at least 5 seconds to send inside it.
                let secondsLeft = 60 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
                if secondsLeft < 5 { try await Task.sleep(for: .seconds(secondsLeft + 0.2)) }
                let release = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.up) * 60)
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
                let local = calendar.dateComponents([.hour, .minute], from: release)
                let end = local.hour! * 60 + local.minute!
                let quiet = try await Serve.request(
                    "PATCH", "\(base)/auth/notifications", key: key, user: "sam",
                    body: #"{"quietHours":{"enabled":true,"start":\#((end + 1440 - 30) % 1440),"end":\#(end),"#
                        + #""timeZone":"Europe/Berlin"}}"#)
                #expect(quiet.0 == 200, "\(quiet.1)")
                let accepted = try await Serve.request(
                    "POST", "\(base)/notifications", key: key,
                    body: #"{"userIds":["sam"],"alert":{"body":"Good morning"}}"#
                )
                #expect(accepted.0 == 202, "\(accepted.1)")

                var arrival: Date?
                let deadline = ContinuousClock.now + .seconds(80)
                while arrival == nil && ContinuousClock.now < deadline {
                    if !harness.sandbox.recordedRequests.isEmpty {
                        arrival = Date()
                    } else {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                let arrived = try #require(arrival, "\(gateway.server.output)")
                #expect(arrived >= release, "arrived \(release.timeIntervalSince(arrived)) s before the window's end")
                #expect(arrived.timeIntervalSince(release) <= 2, "\(arrived.timeIntervalSince(release)) s late")
                #expect(harness.sandbox.recordedRequests.count == 1)
            }
        }

        /// LaundryTime's case: every timer of a machine canceled at once, over HTTP; none of them reaches apns-mock,
        /// while a timer of another machine due at the same moment does.
        @Test func aCanceledGroupNeverReachesAPNs() async throws {
            try await Self.withSam(token: "6d") { harness, gateway in
                let (base, key) = (gateway.base, gateway.key)
                let sendAt = ISO8601DateFormatter().string(
                    from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3).rounded(.up)))
                for (machine, body) in [("machine-3", "wash done"), ("machine-3", "dry done"), ("machine-4", "kept")] {
                    let accepted = try await Serve.request(
                        "POST", "\(base)/notifications", key: key,
                        body:
                            #"{"userIds":["sam"],"alert":{"body":"\#(body)"},"sendAt":"\#(sendAt)","tags":["\#(machine)"]}"#
                    )
                    #expect(accepted.0 == 202, "\(accepted.1)")
                }
                let canceled = try await Serve.request(
                    "DELETE", "\(base)/notifications?tag=machine-3&userId=sam", key: key)
                #expect(canceled.0 == 200, "\(canceled.1)")
                #expect(canceled.1.contains(#""canceledNotifications":2"#), "\(canceled.1)")

                let deadline = ContinuousClock.now + .seconds(20)
                while harness.sandbox.recordedRequests.isEmpty && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                // The canceled ones were due at the same second: a moment more shows they stay away.
                try await Task.sleep(for: .seconds(1))
                let bodies = harness.sandbox.recordedRequests.map { String(decoding: $0.body, as: UTF8.self) }
                #expect(bodies.count == 1, "\(bodies)")
                #expect(bodies.first?.contains(#""body":"kept""#) == true, "\(gateway.server.output)")
            }
        }
    }
}
