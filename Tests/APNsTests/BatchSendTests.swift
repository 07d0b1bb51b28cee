import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldTesting
import Logging
import Testing

extension Networked {
    /// The batch path the delivery engine uses: one stream of answer chunks per batch instead of one awaiting task
    /// per push.
    @Suite
    struct BatchSendTests {
        static func requests(_ count: Int, prefix: String = "") throws -> [PushRequest] {
            try (0..<count).map { try MockHarness.alert(MockHarness.deviceToken(prefix: prefix, index: $0)) }
        }

        @Test func everyRequestIsAnsweredOnceAtItsIndexAcrossConnections() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let requests = try Self.requests(2_000) + Self.requests(10, prefix: "ffff")
            harness.mock.script(
                deviceTokenPrefix: "ffff", .reject(status: 400, reason: "BadDeviceToken", timestamp: nil))
            let (answers, chunks) = try await harness.withPool(harness.configuration(connections: 2)) { pool in
                var answers: [Int: PushResult] = [:]
                var chunks = 0
                for await chunk in pool.send(requests) {
                    chunks += 1
                    for answer in chunk {
                        #expect(answers.updateValue(answer.result, forKey: answer.index) == nil, "answered twice")
                        #expect(answer.latency >= .zero)
                    }
                }
                return (answers, chunks)
            }
            #expect(answers.count == requests.count)
            for (index, request) in requests.enumerated() {
                switch answers[index] {
                case .accepted(let receipt): #expect(index < 2_000 && receipt.apnsID == request.apnsID)
                case .rejected(let rejection): #expect(index >= 2_000 && rejection.reason == .badDeviceToken)
                default: Issue.record("request \(index): \(String(describing: answers[index]))")
                }
            }
            // Answers come a turn's worth at a time, not one chunk per push.
            #expect(chunks < requests.count / 2)
            #expect(harness.mock.connectionCount == 2)
            #expect(Set(harness.mock.recordedRequests.compactMap { $0.header("apns-id") }).count == requests.count)
        }

        @Test func anEmptyBatchEndsAtOnce() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let chunks = try await harness.withPool(harness.configuration()) { pool in
                var chunks = 0
                for await _ in pool.send([]) { chunks += 1 }
                return chunks
            }
            #expect(chunks == 0)
            #expect(harness.mock.connectionCount == 0)
        }

        @Test func leavingTheStreamCancelsWhatIsUnanswered() async throws {
            // The 20 stalled pushes take every stream the server allows.
            let harness = try await MockHarness.start(streamLimit: 20)
            defer { Task { try await harness.stop() } }
            harness.mock.script(deviceTokenPrefix: "57a1", .stall)
            let stalled = try Self.requests(20, prefix: "57a1")
            let answered = try await harness.withPool(harness.configuration(requestTimeout: .seconds(60))) { pool in
                // Like Apple, the mock allows one stream until a push succeeds.
                _ = try await pool.send(MockHarness.alert(MockHarness.deviceToken(index: 0)))
                let consumer = Task {
                    var answered = 0
                    for await chunk in pool.send(stalled) { answered += chunk.count }
                    return answered
                }
                // A stalled request is never recorded; the mock counts it among its open streams.
                let deadline = ContinuousClock.now + .seconds(20)
                while harness.mock.peakConcurrentStreams < stalled.count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(harness.mock.peakConcurrentStreams == stalled.count)
                consumer.cancel()
                let answered = await consumer.value
                // The pool has reset the stalled streams, so their slots are free: a push sent now is answered.
                let after = try await pool.send(MockHarness.alert(MockHarness.deviceToken(index: 1)))
                guard case .accepted = after else {
                    Issue.record("after cancelling: \(after)")
                    return answered
                }
                return answered
            }
            #expect(answered == 0)
        }

        @Test func aBatchSentToAStoppedPoolIsAnsweredShutDown() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let pool = try APNsConnectionPool(
                configuration: harness.configuration(), tokens: harness.tokenSource(), logger: .init(label: "test"))
            let runner = Task { await pool.run() }
            try await Task.sleep(for: .milliseconds(50))
            runner.cancel()
            await runner.value
            var results: [PushResult] = []
            for await chunk in pool.send(try Self.requests(3)) { results += chunk.map(\.result) }
            #expect(results == Array(repeating: .failed(.shutDown), count: 3))
        }
    }
}
