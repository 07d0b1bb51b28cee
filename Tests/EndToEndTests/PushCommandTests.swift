import APNsMock
import Foundation
import HeraldTesting
import LocalServices
import Postgres
import Testing

extension Networked {
    /// `herald push` beside a delivering gateway signs with the fleet's provider token from the database. A token
    /// of its own, made minutes after the gateway's, is what Apple (and `apns-mock`) refuses as
    /// TooManyProviderTokenUpdates, for every process using the key.
    @Suite struct PushCommandTests {
        @Test func aOneOffPushUsesTheFleetsProviderToken() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await HeraldServeDeliveryTests.startGateway(harness, keyFile: keyFile)
            defer { if gateway.server.process.isRunning { gateway.server.process.terminate() } }
            var fleetToken: String?
            for _ in 0..<100 where fleetToken == nil {
                fleetToken = try await harness.client.query(
                    "SELECT token FROM apns_provider_tokens ORDER BY generation DESC LIMIT 1"
                ).first?.decode(column: 0, as: String.self)
                if fleetToken == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let token = try #require(fleetToken)
            let environment = try harness.heraldEnvironment(keyFile: keyFile)
            for index in 0..<3 {
                let device = EngineHarness.token("5e", index)
                let pushed = try await BuiltProgram.herald.run(
                    ["push", "--token", device, "--alert", "Hello"], environment: environment)
                #expect(pushed.status == 0, "\(pushed.output)")
                let request = try #require(harness.sandbox.recordedRequests.last { $0.deviceToken == device })
                #expect(request.header("authorization") == "bearer \(token)")
            }
            _ = await gateway.server.stop()
            try await harness.stop()
        }
    }
}
