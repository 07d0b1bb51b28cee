import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import LocalServices
import Postgres
import Testing

extension Networked {
    /// The built `herald` executable, as an operator runs it: `worker`, `logs`, `prune`, `deliveries resume`.
    @Suite struct HeraldWorkerCommandTests {
        @Test func workerDeliversAndStopsCleanlyOnSIGTERM() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let environment = try harness.heraldEnvironment(keyFile: keyFile)
            let sandboxNotification = try await harness.insertFanOut(count: 20, tokenPrefix: "c0")
            let worker = try BuiltProgram.herald.start(["worker"], environment: environment)
            let deadline = ContinuousClock.now + .seconds(30)
            while try await harness.states(of: sandboxNotification) != ["sent": 20], ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await harness.states(of: sandboxNotification) == ["sent": 20], "\(worker.output)")
            #expect(harness.sandbox.recordedRequests.count == 20)

            let status = await worker.stop()
            #expect(status == 0, "\(worker.output)")
            #expect(!worker.output.contains(EngineHarness.token("c0", 1)), "no device token in the output")

            let database = ["DATABASE_URL": harness.databaseURL]
            let logs = try await BuiltProgram.herald.run(
                ["logs", "--status", "sent", "--limit", "5"], environment: database)
            #expect(logs.status == 0)
            #expect(logs.output.split(separator: "\n").count == 5)
            #expect(logs.output.contains(" sent new_feedback "))
            #expect(!logs.output.contains(EngineHarness.token("c0", 1)))

            let resumed = try await BuiltProgram.herald.run(["deliveries", "resume"], environment: database)
            #expect(resumed.status == 0)

            try await harness.client.execute(
                "UPDATE push_notification_logs SET created_at = now() - interval '2 hours'")
            #expect(try await harness.client.query("SELECT count(*) FROM deliveries").scalar(Int.self) == 0)
            let pruned = try await BuiltProgram.herald.run(["prune", "--older-than", "90m"], environment: database)
            #expect(pruned.status == 0, "\(pruned.output)")
            #expect(
                pruned.output.contains(
                    "deleted 20 log rows older than 90m (0 log partitions dropped); moved 0 finished deliveries"))
            let badAge = try await BuiltProgram.herald.run(["prune", "--older-than", "30x"], environment: database)
            #expect(badAge.status != 0)
            try await harness.stop()
        }
    }
}
