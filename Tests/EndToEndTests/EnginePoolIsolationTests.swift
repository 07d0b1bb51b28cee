import APNsMock
import Foundation
import FoundationNetworking
import HeraldTesting
import LocalServices
import Logging
import Postgres
import Testing

extension Networked {
    /// `herald serve` keeps the engine's database sessions apart from the API's: with every API session held by
    /// requests stuck on a lock, accepted deliveries still go out.
    @Suite struct EnginePoolIsolationTests {
        @Test func deliveriesGoOutWhileEveryAPISessionIsBusy() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["HERALD_DATABASE_POOL_SIZE"] = "2"
            let created = try await BuiltProgram.herald.run(
                ["keys", "create", "--name", "pool", "--scope", "admin"], environment: environment)
            let key = try #require(created.output.split(separator: "\n").first.map(String.init))
            let server = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            defer { if server.process.isRunning { server.process.terminate() } }
            let base = "http://127.0.0.1:\(try await server.servingPort())/api/v1"

            let locker = PostgresClient(
                configuration: try PostgresConfiguration(harness.databaseURL), logger: Logger(label: "test.locker"))
            defer { locker.shutdown() }
            // FoundationNetworking's URLSession can trap when its tasks are cancelled, so the callers end by time.
            let callers = try await locker.withTransaction { connection in
                // The key's first use records it, so every request with it now waits on this row lock: eight callers
                // in a loop keep both API sessions busy.
                try await connection.execute("SELECT 1 FROM api_keys WHERE name = 'pool' FOR UPDATE")
                let stop = ContinuousClock.now + .seconds(12)
                let callers = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for _ in 0..<8 {
                            group.addTask {
                                while ContinuousClock.now < stop {
                                    _ = try? await HeraldServeDeliveryTests.request("GET", "\(base)/logs", key: key)
                                }
                            }
                        }
                    }
                }
                try await Task.sleep(for: .seconds(1))
                // This request waits in line for a session (its budget is 5 s) and, given one a stuck caller's
                // statement timeout freed, on the lock for 5 s more: about 9 s, so the deliveries' time counts from
                // the fan-out, not from here.
                let refused = try await HeraldServeDeliveryTests.request("GET", "\(base)/logs", key: key)
                #expect(refused.0 == 503, "the API's sessions are all busy: \(refused.1)")

                _ = try await harness.insertFanOut(count: 20, tokenPrefix: "a1")
                let inserted = ContinuousClock.now
                while harness.sandbox.recordedRequests.count < 20 && ContinuousClock.now < inserted + .seconds(10) {
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(harness.sandbox.recordedRequests.count == 20, "\(server.output)")
                let stillRefused = try await HeraldServeDeliveryTests.request("GET", "\(base)/logs", key: key)
                #expect(stillRefused.0 == 503, "sent while the API was still stuck: \(stillRefused.1)")
                return callers
            }
            await callers.value
            #expect(await server.stop() == 0, "\(server.output)")
            try await harness.stop()
        }
    }
}
