import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres
import Testing

extension Networked {
    /// Nothing is lost or sent twice: dead workers, concurrent engines, dropped connections, shutdown.
    @Suite struct DeliveryEngineResilienceTests {
        @Test func claimsOfADeadWorkerAreTakenOverWhenTheLeaseExpires() async throws {
            let harness = try await EngineHarness.start()
            let notification = try await harness.insertFanOut(count: 50, tokenPrefix: "d1")
            // A worker claims everything, then dies without sending or recording.
            let dead = try await DeliveryStore(client: harness.client).claim(
                limit: 100, workerID: "dead-worker", lease: .seconds(1))
            #expect(dead.count == 50)
            #expect(try await harness.states(of: notification) == ["sending": 50])
            let done = try await harness.run(harness.makeEngine()) {
                try await harness.states(of: notification) == ["sent": 50]
            }
            #expect(done)
            let attempts = try await harness.client.query(
                """
                SELECT DISTINCT attempt FROM push_notification_logs
                WHERE notification_id = \(notification) AND status = 'sent'
                """
            ).decode(Int.self)
            #expect(attempts == [2], "the dead worker's claim counted")
            let ids = harness.sandbox.recordedRequests.compactMap { $0.header("apns-id") }
            #expect(Set(ids) == Set(dead.map { $0.id.uuidString.lowercased() }))
            #expect(ids.count == 50)
            try await harness.stop()
        }

        /// The results are written where the claim left each row; a row moved since (here by VACUUM FULL, which
        /// rewrites the table) is found by its id instead, and a row claimed again since, by another worker or by
        /// this one (after its lease ran out, with one attempt more), is left alone.
        @Test func resultsReachRowsMovedSinceTheClaim() async throws {
            let harness = try await EngineHarness.start()
            let notification = try await harness.insertFanOut(count: 20, tokenPrefix: "d9")
            let store = DeliveryStore(client: harness.client)
            let claimed = try await store.claim(limit: 20, workerID: "mover", lease: .seconds(60))
            #expect(claimed.count == 20)
            let before = try await harness.client.query(
                "SELECT ctid::text FROM deliveries WHERE notification_id = \(notification) ORDER BY id"
            ).decode(String.self)
            try await harness.client.execute("VACUUM FULL deliveries")
            let after = try await harness.client.query(
                "SELECT ctid::text FROM deliveries WHERE notification_id = \(notification) ORDER BY id"
            ).decode(String.self)
            #expect(before != after)
            try await harness.client.execute(
                "UPDATE deliveries SET claimed_by = 'other' WHERE id = \(claimed[0].id)")
            try await harness.client.execute(
                "UPDATE deliveries SET attempts = attempts + 1 WHERE id = \(claimed[1].id)")

            let attempts = claimed.map(DeliveryAttempt.sent)
            _ = try await store.record(attempts, workerID: "mover")
            #expect(try await harness.states(of: notification) == ["sent": 18, "sending": 2])
            #expect(try await harness.delivery(claimed[0].id).state == "sending")
            #expect(try await harness.delivery(claimed[1].id).state == "sending")
            try await harness.stop()
        }

        @Test func anEngineDroppedMidBatchLosesNothing() async throws {
            let harness = try await EngineHarness.start()
            let notification = try await harness.insertFanOut(count: 300, tokenPrefix: "d2")
            harness.sandbox.setResponseDelay(.milliseconds(300))
            var configuration = EngineHarness.configuration(workerID: "doomed")
            configuration.lease = .seconds(2)
            configuration.shutdownGracePeriod = .zero
            let doomed = harness.makeEngine(configuration)
            let runner = Task { await doomed.run() }
            while doomed.recorded.inFlight == 0 { try await Task.sleep(for: .milliseconds(20)) }
            // Cut the doomed engine off from the database mid-batch, as a crash would: its results are never recorded.
            let doomedRows = try await harness.client.query(
                "SELECT count(*) FROM deliveries WHERE claimed_by = 'doomed'"
            ).scalar(Int.self)
            #expect(doomedRows > 0)
            try await harness.client.execute(
                "UPDATE deliveries SET claimed_by = 'crashed' WHERE claimed_by = 'doomed'")
            doomed.shutdownGracefully()
            await runner.value
            harness.sandbox.setResponseDelay(.zero)
            let done = try await harness.run(harness.makeEngine()) {
                try await harness.states(of: notification) == ["sent": 300]
            }
            #expect(done)
            let ids = Set(harness.sandbox.recordedRequests.compactMap { $0.header("apns-id") })
            #expect(ids.count == 300, "every delivery reached APNs; the resent ones reused their apns-id")
            try await harness.stop()
        }

        @Test func twoEnginesDeliverTenThousandPushesWithoutDuplicates() async throws {
            let harness = try await EngineHarness.start(connections: 2)
            let notification = try await harness.insertFanOut(count: 10_000, tokenPrefix: "2e")
            let secondClient = PostgresClient(
                configuration: try PostgresConfiguration(harness.databaseURL), options: .init(maximumConnections: 8),
                logger: Logger(label: "test.db2"))
            let first = harness.makeEngine(EngineHarness.configuration(workerID: "engine-a"))
            let second = harness.makeEngine(EngineHarness.configuration(workerID: "engine-b"), client: secondClient)
            let secondRunner = Task { await second.run() }
            let done = try await harness.run(first, timeout: .seconds(90)) {
                try await harness.states(of: notification) == ["sent": 10_000]
            }
            second.shutdownGracefully()
            await secondRunner.value
            secondClient.shutdown()
            #expect(done)
            let ids = harness.sandbox.recordedRequests.compactMap { $0.header("apns-id") }
            #expect(ids.count == 10_000)
            #expect(Set(ids).count == 10_000)
            #expect(first.recorded.sent > 0)
            #expect(second.recorded.sent > 0)
            #expect(first.recorded.sent + second.recorded.sent == 10_000)
            let logs = try await harness.client.query(
                "SELECT count(*) FROM push_notification_logs WHERE notification_id = \(notification)"
            ).scalar(Int.self)
            #expect(logs == 10_000)
            try await harness.stop()
        }

        @Test func goAwayAndDroppedConnectionsLoseNothing() async throws {
            let harness = try await EngineHarness.start()
            let notification = try await harness.insertFanOut(count: 2_000, tokenPrefix: "60a")
            harness.sandbox.injectGoAway(afterResponses: 300)
            harness.sandbox.injectConnectionDrop(afterResponses: 900)
            let done = try await harness.run(harness.makeEngine(), timeout: .seconds(60)) {
                try await harness.states(of: notification) == ["sent": 2_000]
            }
            #expect(done)
            #expect(harness.sandbox.connectionCount >= 3)
            let ids = Set(harness.sandbox.recordedRequests.compactMap { $0.header("apns-id") })
            #expect(ids.count == 2_000)
            try await harness.stop()
        }

        @Test func gracefulShutdownFinishesOrReleasesWhatIsInFlight() async throws {
            let harness = try await EngineHarness.start()
            let notification = try await harness.insertFanOut(count: 400, tokenPrefix: "5d")
            harness.sandbox.setResponseDelay(.seconds(3))
            var configuration = EngineHarness.configuration()
            configuration.shutdownGracePeriod = .milliseconds(500)
            let engine = harness.makeEngine(configuration)
            let runner = Task { await engine.run() }
            while engine.recorded.inFlight == 0 { try await Task.sleep(for: .milliseconds(20)) }
            runner.cancel()
            await runner.value
            let states = try await harness.states(of: notification)
            #expect(states["sending"] == nil, "no claim is left held after shutdown")
            #expect(states["pending", default: 0] > 0)
            // Released rows kept their attempt budget.
            let attempts = try await harness.client.query(
                "SELECT max(attempts) FROM deliveries WHERE notification_id = \(notification) AND state = 'pending'"
            ).scalar(Int.self)
            #expect(attempts == 0)
            try await harness.stop()
        }

        /// Apple refusing the service or the key's token (503 or 429 `TooManyProviderTokenUpdates` to everything, for
        /// 10 s) pauses sending: a handful of probes go out during the outage instead of every delivery retrying on
        /// its own schedule, no attempt is spent, and everything is delivered once Apple answers again.
        @Test(arguments: [(503, "ServiceUnavailable"), (429, "TooManyProviderTokenUpdates")])
        func aServiceOutagePausesSendingAndSpendsNoAttempts(status: Int, reason: String) async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.script(deviceTokenPrefix: "", .reject(status: status, reason: reason, timestamp: nil))
            let notification = try await harness.insertFanOut(count: 200, tokenPrefix: "0ff")
            let engine = harness.makeEngine()
            let runner = Task { await engine.run() }
            try await Task.sleep(for: .seconds(10))
            let duringOutage = harness.sandbox.recordedRequests.count
            harness.sandbox.clearScripts()
            var delivered = false
            for _ in 0..<300 where !delivered {
                delivered = try await harness.states(of: notification)["sent"] == 200
                if !delivered { try await Task.sleep(for: .milliseconds(100)) }
            }
            engine.shutdownGracefully()
            await runner.value
            #expect(delivered)
            #expect(duringOutage >= 3, "a probe, and another after each of the first pauses")
            // Pauses of 1, 2, 4 and 8 s, each scaled by a jitter of 0.5 to 1: at most 6 probes fit in 10 s.
            #expect(duringOutage <= 6, "\(duringOutage) requests in 10 s of outage: one probe per pause")
            let spent = try await harness.client.query(
                """
                SELECT max(attempt) FROM push_notification_logs
                WHERE notification_id = \(notification) AND status = 'sent'
                """
            ).scalar(Int?.self)
            #expect(spent == 1, "refused pushes went back without spending an attempt")
            #expect(engine.recorded.backoffSeconds.contains { $0 > 0 })
            #expect(engine.recorded.backoffSeconds.last == 0)
            try await harness.stop()
        }

        /// An idle engine (nothing to send, nothing answered yet, so still probing) polls at its poll interval; its
        /// workers must not take turns probing an empty outbox without pause, a hot loop toward the database.
        @Test func anIdleEngineDoesNotSpinOnTheDatabase() async throws {
            let harness = try await EngineHarness.start()
            let engine = harness.makeEngine()
            let runner = Task { await engine.run() }
            func commits() async throws -> Int {
                try await harness.client.query(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                ).scalar(Int.self)
            }
            try await Task.sleep(for: .milliseconds(500))
            let before = try await commits()
            try await Task.sleep(for: .seconds(2))
            let during = try await commits() - before
            engine.shutdownGracefully()
            await runner.value
            // Two workers polling every 100 ms, the rescuer every 300 ms and the depth gauge: under a hundred in 2 s.
            #expect(during < 200, "\(during) transactions in 2 s of idling")
            try await harness.stop()
        }
    }
}
