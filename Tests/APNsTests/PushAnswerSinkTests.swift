import APNsCore
import Foundation
import Testing

@testable import APNs

@Suite struct PushAnswerSinkTests {
    static func answers(_ indices: Range<Int>) -> [PushAnswer] {
        indices.map { PushAnswer(index: $0, result: .failed(.cancelled), latency: .zero) }
    }

    static func requests(_ count: Int) throws -> [PushRequest] {
        try (0..<count).map { index in
            try PushRequest(
                deviceToken: DeviceToken(hex: String(format: "%064x", index))!, bundleID: "com.example.app",
                pushType: .alert, payloadJSON: Data(#"{"aps":{}}"#.utf8))
        }
    }

    /// Connections read a batch's requests from its sink by index instead of carrying copies.
    @Test func eachIndexReadsItsOwnRequest() throws {
        let requests = try Self.requests(3)
        let sink = PushAnswerSink(output: PushAnswers.makeStream().continuation, requests: requests)
        #expect(sink.size == 3)
        for index in requests.indices {
            #expect(sink.withRequest(at: index) { $0.apnsID } == requests[index].apnsID)
            #expect(sink.withRequest(at: index) { $0.deviceToken } == requests[index].deviceToken)
        }
    }

    @Test func theLastAnswerEndsTheStream() async throws {
        let (answers, output) = PushAnswers.makeStream()
        let sink = PushAnswerSink(output: output, requests: try Self.requests(3))
        sink.deliver(Self.answers(0..<2))
        sink.deliver(Self.answers(2..<3))
        var indices: [Int] = []
        for await chunk in answers { indices += chunk.map(\.index) }
        #expect(indices == [0, 1, 2])
    }

    /// A cancelled stream runs its termination handler before it finishes, so answers delivered in between (the
    /// connections answering the tickets the handler cancelled) would otherwise reach the consumer that left.
    @Test func aConsumerThatLeftReceivesNothingMore() async throws {
        let (answers, output) = PushAnswers.makeStream()
        let sink = PushAnswerSink(output: output, requests: try Self.requests(2))
        output.onTermination = { termination in
            guard case .cancelled = termination else { return }
            sink.abandon()
            sink.deliver(Self.answers(0..<2))
        }
        let consumer = Task {
            var received = 0
            for await chunk in answers { received += chunk.count }
            return received
        }
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(await consumer.value == 0)
    }
}
