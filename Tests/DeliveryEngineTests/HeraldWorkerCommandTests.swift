import APNs
import APNsMock
import Foundation
import Glibc
import HeraldCore
import Postgres
import Testing

extension Networked {
    /// The built `herald` executable, as an operator runs it: `worker`, `logs`, `prune`, `deliveries resume`.
    @Suite struct HeraldWorkerCommandTests {
        /// `herald` sits beside the test bundle in the build folder.
        static let herald = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("herald")

        /// A started `herald` process whose output goes to a file.
        struct Running {
            let process: Process
            let outputURL: URL
            let exited: Task<Int32, Never>

            var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
        }

        static func start(_ arguments: [String], environment: [String: String]) throws -> Running {
            let process = Process()
            process.executableURL = herald
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.filter {
                !$0.key.hasPrefix("APNS_") && !$0.key.hasPrefix("HERALD_") && $0.key != "DATABASE_URL"
            }.merging(environment) { $1 }
            let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID()).log")
            FileManager.default.createFile(atPath: outputURL.path, contents: nil)
            let output = try FileHandle(forWritingTo: outputURL)
            process.standardOutput = output
            process.standardError = output
            let (stream, continuation) = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { ended in
                continuation.yield(ended.terminationStatus)
                continuation.finish()
            }
            try process.run()
            let exited = Task {
                for await status in stream { return status }
                return -1
            }
            return Running(process: process, outputURL: outputURL, exited: exited)
        }

        static func run(_ arguments: [String], environment: [String: String]) async throws -> (Int32, String) {
            let running = try start(arguments, environment: environment)
            let status = await running.exited.value
            return (status, running.output)
        }

        @Test func workerDeliversAndStopsCleanlyOnSIGTERM() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-key-\(UUID()).p8").path
            try harness.key.writePrivateKey(to: keyFile)
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let environment = [
                "DATABASE_URL": harness.databaseURL, "APNS_KEY_ID": harness.key.keyID,
                "APNS_TEAM_ID": EngineHarness.teamID,
                "APNS_KEY_PATH": keyFile, "APNS_BUNDLE_ID": EngineHarness.bundleID,
                "HERALD_APNS_SANDBOX_URL": "https://127.0.0.1:\(harness.sandbox.port)",
                "HERALD_APNS_PRODUCTION_URL": "https://127.0.0.1:\(harness.production.port)",
                "HERALD_APNS_CA_FILE": harness.caFiles[0],
            ]
            let sandboxNotification = try await harness.insertFanOut(count: 20, tokenPrefix: "c0")
            let worker = try Self.start(["worker"], environment: environment)
            let deadline = ContinuousClock.now + .seconds(30)
            while try await harness.states(of: sandboxNotification) != ["sent": 20], ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await harness.states(of: sandboxNotification) == ["sent": 20], "\(worker.output)")
            #expect(harness.sandbox.recordedRequests.count == 20)

            kill(worker.process.processIdentifier, SIGTERM)
            let status = await worker.exited.value
            #expect(status == 0, "\(worker.output)")
            #expect(!worker.output.contains(EngineHarness.token("c0", 1)), "no device token in the output")

            let (logsStatus, logs) = try await Self.run(
                ["logs", "--status", "sent", "--limit", "5"], environment: ["DATABASE_URL": harness.databaseURL])
            #expect(logsStatus == 0)
            #expect(logs.split(separator: "\n").count == 5)
            #expect(logs.contains(" sent new_feedback "))
            #expect(!logs.contains(EngineHarness.token("c0", 1)))

            let (resumeStatus, _) = try await Self.run(
                ["deliveries", "resume"], environment: ["DATABASE_URL": harness.databaseURL])
            #expect(resumeStatus == 0)

            try await harness.client.execute(
                "UPDATE push_notification_logs SET created_at = now() - interval '2 hours'")
            try await harness.client.execute(
                """
                UPDATE deliveries SET finished_at = now() - interval '2 hours', created_at = now() - interval '2 hours'
                """
            )
            let (pruneStatus, pruned) = try await Self.run(
                ["prune", "--older-than", "90m"], environment: ["DATABASE_URL": harness.databaseURL])
            #expect(pruneStatus == 0, "\(pruned)")
            #expect(pruned.contains("deleted 20 log rows and 20 finished deliveries"))
            let (badStatus, _) = try await Self.run(
                ["prune", "--older-than", "30x"], environment: ["DATABASE_URL": harness.databaseURL])
            #expect(badStatus != 0)
            try await harness.stop()
        }
    }
}
