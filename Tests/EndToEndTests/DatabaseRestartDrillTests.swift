import APNsMock
import Foundation
import FoundationNetworking
import Glibc
import HeraldTesting
import LocalServices
import Testing

extension Networked {
    /// PostgreSQL stopped (fast shutdown: every session cut) in the middle of a 2,000-device fan-out and started
    /// again three seconds later on the same port: `herald serve` answers `/readyz` 503 while the database is gone,
    /// reconnects by itself, delivers every push, and answers `/readyz` 200, never a 5xx other than that 503.
    @Suite struct DatabaseRestartDrillTests {
        @Test func everythingIsDeliveredAcrossADatabaseRestart() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-restart-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            var cluster = try await EmbeddedPostgres.start(options: .init(directory: folder))
            let port = cluster.port
            let url = cluster.url()
            let migrated = try await BuiltProgram.herald.run(["migrate", "up"], environment: ["DATABASE_URL": url])
            try #require(migrated.status == 0, "\(migrated.output)")

            let harness = try await EngineHarness.start(databaseURL: url)
            harness.sandbox.setResponseDelay(.milliseconds(5))
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let devices = 2000
            let notification = try await harness.insertFanOut(count: devices, tokenPrefix: "d0")
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["HERALD_DELIVERY_BATCH_SIZE"] = "100"
            environment["HERALD_DELIVERY_LEASE_SECONDS"] = "2"
            let server = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            let ready = URL(string: "http://127.0.0.1:\(try await server.servingPort())/readyz")!
            #expect(try await Self.status(of: ready) == 200)

            while harness.sandbox.recordedRequests.count < devices / 4 { try await Task.sleep(for: .milliseconds(5)) }
            await cluster.stop()
            let beforeStop = harness.sandbox.recordedRequests.count
            var duringOutage: Set<Int> = []
            for _ in 0..<6 {
                duringOutage.insert(try await Self.status(of: ready))
                try await Task.sleep(for: .milliseconds(500))
            }
            cluster = try await EmbeddedPostgres.start(options: .init(directory: folder, port: port))
            #expect(duringOutage == [503], "while the database is down, /readyz says so: \(duringOutage)")

            var sent = 0
            for _ in 0..<600 where sent < devices {
                sent = (try? await harness.states(of: notification)["sent"]) ?? 0
                if sent < devices { try await Task.sleep(for: .milliseconds(100)) }
            }
            var afterwards: [Int] = []
            for _ in 0..<5 { afterwards.append(try await Self.status(of: ready)) }
            _ = await server.stop()
            #expect(sent == devices, "every device got its push")
            #expect(afterwards.allSatisfy { $0 == 200 }, "\(afterwards)")
            let pushed = Set(harness.sandbox.recordedRequests.compactMap { $0.header("apns-id") })
            #expect(pushed.count == devices)
            print(
                """
                database restart drill: stopped after \(beforeStop) pushes; \(harness.sandbox.recordedRequests.count) \
                requests for \(devices) devices; /readyz \(duringOutage.sorted()) while down, \(afterwards) after
                """)
            #expect(!server.output.contains("internal error"), "no request failed with a 500")
            try await harness.stop()
            await cluster.stop()
        }

        static func status(of url: URL) async throws -> Int {
            var request = URLRequest(url: url)
            request.timeoutInterval = 10
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
    }
}
