import APNsMock
import Foundation
import Glibc
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// `kill -9` of `herald serve` in the middle of a 2,000-device fan-out, with a `herald worker` delivering beside
    /// it, then a restart, against a mock that refuses a key's token replaced within 20 minutes: every device gets
    /// its push, no token is refused (every process uses the fleet's), the copies sent twice are at most what the
    /// killed process's send window held (its ceiling, 5% of the fan-out), and both copies carry the same `apns-collapse-id`, so the second replaces the first.
    @Suite struct CrashDrillTests {
        @Test func aKilledServerResendsOnlyWhatWasInFlight() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.setResponseDelay(.milliseconds(10))
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let devices = 2000
            let notification = try await harness.insertFanOut(count: devices, tokenPrefix: "c0")
            // The default workers and batches (4 × 500): the send window, not the claim, bounds what a killed
            // process had sent and not recorded, here at most 100 (5% of the fan-out). A short lease lets the
            // restart take its rows over soon.
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["HERALD_DELIVERY_LEASE_SECONDS"] = "2"
            environment["HERALD_DELIVERY_IN_FLIGHT_CEILING"] = "100"

            let first = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            _ = try await first.servingPort()
            let beside = try BuiltProgram.herald.start(["worker"], environment: environment)
            while harness.sandbox.recordedRequests.count < devices / 3 { try await Task.sleep(for: .milliseconds(5)) }
            _ = await first.stop(with: SIGKILL)

            let second = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            _ = try await second.servingPort()
            var sent = 0
            for _ in 0..<600 where sent < devices {
                sent = try await harness.states(of: notification)["sent"] ?? 0
                if sent < devices { try await Task.sleep(for: .milliseconds(100)) }
            }
            _ = await second.stop()
            _ = await beside.stop()
            #expect(sent == devices, "every device got its push")

            let requests = harness.sandbox.recordedRequests
            let byID = Dictionary(grouping: requests) { $0.header("apns-id") ?? "" }
            let twice = byID.values.filter { $0.count > 1 }
            #expect(byID.count == devices)
            let refusedTokens = requests.filter {
                $0.verdict == .reject(status: 429, reason: "TooManyProviderTokenUpdates", timestamp: nil)
            }
            #expect(refusedTokens.isEmpty, "\(refusedTokens.count) pushes refused for a replaced token")
            // At most what the killed process's window let it send and not record: its ceiling.
            #expect(twice.count <= 100, "\(twice.count) of \(devices) sent twice")
            for copies in twice {
                let collapseIDs = Set(copies.map { $0.header("apns-collapse-id") })
                #expect(collapseIDs.count == 1 && collapseIDs.first! != nil)
            }
            #expect(requests.allSatisfy { $0.header("apns-collapse-id") == notification.uuidString.lowercased() })
            print("crash drill: \(twice.count) of \(devices) devices got a second copy")
            try await harness.stop()
        }
    }
}
