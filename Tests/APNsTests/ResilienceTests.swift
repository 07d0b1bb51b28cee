import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldTesting
import Logging
import Testing

extension Networked {
    @Suite
    struct ResilienceTests {
        /// Sends `count` pushes at once and returns each request's id with its result.
        static func burst(_ count: Int, through pool: APNsConnectionPool) async throws -> [APNsID: PushResult] {
            try await withThrowingTaskGroup(of: (APNsID, PushResult).self) { group in
                for index in 0..<count {
                    group.addTask {
                        let id = APNsID()
                        return (
                            id, try await pool.send(MockHarness.alert(MockHarness.deviceToken(index: index), id: id))
                        )
                    }
                }
                var results: [APNsID: PushResult] = [:]
                for try await (id, result) in group { results[id] = result }
                return results
            }
        }

        /// The results that are not an acceptance of their own request, counted by what they were: empty when every
        /// request was accepted. A count keeps a failure readable where a list of 10,000 results would not be.
        static func notAccepted(_ results: [APNsID: PushResult]) -> [String: Int] {
            var counts: [String: Int] = [:]
            for (id, result) in results {
                if case .accepted(let receipt) = result, receipt.apnsID == id { continue }
                counts["\(result)", default: 0] += 1
            }
            return counts
        }

        @Test func tenThousandRequestsOnTwoConnectionsUseManyStreams() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            // All 10,000 requests are handed over at once and each one's timeout runs from then, so it must cover
            // the whole burst. The in-process mock is the bottleneck (its debug-built swift-nio event loops use
            // three quarters of the CPU): about 800 pushes/s on an idle 2-core machine, under 450 beside two busy
            // loops, where the harness's 20 s let the last few hundred requests time out.
            let configuration = harness.configuration(connections: 2, requestTimeout: .seconds(50))
            let results = try await harness.withPool(configuration) { pool in
                try await Self.burst(10_000, through: pool)
            }
            #expect(results.count == 10_000)
            let notAccepted = Self.notAccepted(results)
            #expect(notAccepted.isEmpty)
            #expect(harness.mock.connectionCount == 2)
            #expect(harness.mock.peakConcurrentStreams > 100)
            #expect(Set(harness.mock.recordedRequests.compactMap { $0.header("apns-id") }).count == 10_000)
        }

        @Test func serverStreamLimitIsObeyed() async throws {
            let harness = try await MockHarness.start(streamLimit: 10)
            defer { Task { try await harness.stop() } }
            // The mock sees a stream as open from its HEADERS to its answer. Answering at once, it can close the
            // first stream (sent alone, before the client read SETTINGS) before the next nine arrive, and from then
            // on it sees the client's refills in the batches it answered: 9, not the 10 the client has in flight.
            // Answers that take 50 ms (Apple's take longer) keep every stream open at the mock as long as at the
            // client, so the peak it observes is the client's.
            harness.mock.setResponseDelay(.milliseconds(50))
            let results = try await harness.withPool(harness.configuration(connections: 1)) { pool in
                try await Self.burst(500, through: pool)
            }
            let notAccepted = Self.notAccepted(results)
            #expect(notAccepted.isEmpty)
            #expect(harness.mock.peakConcurrentStreams == 10)
            #expect(harness.mock.connectionCount == 1)
            #expect(harness.mock.recordedRequests.count == 500, "no stream was refused and resent")
        }

        @Test func goAwayMidBurstLosesNothingAndSendsNothingTwice() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            harness.mock.injectGoAway(afterResponses: 500)
            let results = try await harness.withPool(harness.configuration(connections: 1)) { pool in
                try await Self.burst(2_000, through: pool)
            }
            #expect(results.count == 2_000)
            let notAccepted = Self.notAccepted(results)
            #expect(notAccepted.isEmpty)
            #expect(harness.mock.connectionCount >= 2)
            let accepted = harness.mock.recordedRequests.filter { $0.verdict.status == 200 }.compactMap {
                $0.header("apns-id")
            }
            #expect(accepted.count == 2_000)
            #expect(Set(accepted).count == 2_000)
        }

        @Test func droppedConnectionMidBurstLosesNothing() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            harness.mock.injectConnectionDrop(afterResponses: 500)
            let results = try await harness.withPool(harness.configuration(connections: 2)) { pool in
                try await Self.burst(2_000, through: pool)
            }
            #expect(results.count == 2_000)
            let notAccepted = Self.notAccepted(results)
            #expect(notAccepted.isEmpty)
            #expect(harness.mock.connectionCount >= 3)
            let accepted = Set(harness.mock.recordedRequests.compactMap { $0.header("apns-id") })
            #expect(accepted.count == 2_000)
        }

        @Test func stalledServerTriggersTheTimeout() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            harness.mock.script(deviceTokenPrefix: "57a1", .stall)
            let (before, stalled, elapsed, after) = try await harness.withPool(
                harness.configuration(requestTimeout: .seconds(3))
            ) { pool in
                let before = try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
                let started = ContinuousClock.now
                let stalled = try await pool.send(MockHarness.alert(MockHarness.deviceToken(prefix: "57a1")))
                let elapsed = ContinuousClock.now - started
                let after = try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
                return (before, stalled, elapsed, after)
            }
            #expect(before.uniqueID != nil)
            #expect(stalled == .failed(.timedOut))
            // Generous upper bound: other suites load this 2-core machine at the same time.
            #expect(elapsed >= .seconds(3) && elapsed < .seconds(15))
            #expect(after.uniqueID != nil, "the connection should still work after a timeout: \(after)")
        }

        @Test func slowServerWithinTheTimeoutStillAnswers() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            harness.mock.setResponseDelay(.milliseconds(200))
            let result = try await harness.withPool(harness.configuration(requestTimeout: .seconds(3))) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            if case .accepted = result {} else { Issue.record("expected acceptance, got \(result)") }
        }

        @Test func stoppingThePoolAnswersOpenRequestsAndLaterOnes() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            harness.mock.script(deviceTokenPrefix: "57a1", .stall)
            let pool = try APNsConnectionPool(
                configuration: harness.configuration(), tokens: harness.tokenSource(), logger: Logger(label: "test"))
            let runner = Task { await pool.run() }
            let open = Task { try await pool.send(MockHarness.alert(MockHarness.deviceToken(prefix: "57a1"))) }
            try await Task.sleep(for: .milliseconds(300))
            runner.cancel()
            await runner.value
            #expect(try await open.value == .failed(.shutDown))
            #expect(try await pool.send(MockHarness.alert(MockHarness.deviceToken())) == .failed(.shutDown))
        }

        /// When a pool's run returns, its thread has freed what the connections owned (TLS context, signing key):
        /// `herald` exits right after, and OpenSSL's exit-time cleanup must not meet a thread still freeing OpenSSL
        /// objects (a worker crashed with SIGSEGV in libcrypto after SIGTERM that way).
        @Test func stoppedPoolHasFreedItsConnectionsOpenSSLObjects() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            weak var releasedTokens: ProviderTokenSource?
            do {
                let tokens = try harness.tokenSource()
                releasedTokens = tokens
                let result = try await harness.withPool(harness.configuration(connections: 2), tokens: tokens) {
                    pool in try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
                }
                #expect(result.uniqueID != nil)
            }
            #expect(releasedTokens == nil, "the pool's thread still held a loop after the pool stopped")
        }

        /// A pool stopped the moment it started still frees everything before its run returns: the thread may not have
        /// begun when the stop arrives.
        @Test func poolStoppedAtOnceHasFreedItsLoops() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            for _ in 0..<20 {
                weak var releasedTokens: ProviderTokenSource?
                do {
                    let tokens = try harness.tokenSource()
                    releasedTokens = tokens
                    let pool = try APNsConnectionPool(
                        configuration: harness.configuration(connections: 2), tokens: tokens,
                        logger: Logger(label: "test"))
                    let runner = Task { await pool.run() }
                    runner.cancel()
                    await runner.value
                }
                #expect(releasedTokens == nil, "the pool's run returned before its loops were freed")
            }
        }

        /// An idle connection pings; the mock answers, so the connection is kept (an unanswered ping would
        /// make the client reconnect after the ping timeout).
        @Test func idleConnectionPingsAndStaysOpen() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            var configuration = harness.configuration()
            configuration.pingInterval = .milliseconds(200)
            configuration.pingTimeout = .seconds(1)
            let (first, second) = try await harness.withPool(configuration) { pool in
                let first = try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
                try await Task.sleep(for: .milliseconds(2500))
                let second = try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
                return (first, second)
            }
            #expect(first.uniqueID != nil)
            #expect(second.uniqueID != nil)
            #expect(harness.mock.connectionCount == 1)
        }

        @Test func cancelledCallerGetsCancelledResult() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            harness.mock.script(deviceTokenPrefix: "57a1", .stall)
            let result = try await harness.withPool(harness.configuration()) { pool in
                let task = Task { try await pool.send(MockHarness.alert(MockHarness.deviceToken(prefix: "57a1"))) }
                try await Task.sleep(for: .milliseconds(300))
                task.cancel()
                return try await task.value
            }
            #expect(result == .failed(.cancelled))
        }
    }
}
