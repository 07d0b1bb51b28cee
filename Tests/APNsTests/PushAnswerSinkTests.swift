import APNsCore
import Testing

@testable import APNs

@Suite struct PushAnswerSinkTests {
    static func answers(_ indices: Range<Int>) -> [PushAnswer] {
        indices.map { PushAnswer(index: $0, result: .failed(.cancelled), latency: .zero) }
    }

    @Test func theLastAnswerEndsTheStream() async {
        let (answers, output) = PushAnswers.makeStream()
        let sink = PushAnswerSink(output: output, count: 3)
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
        let sink = PushAnswerSink(output: output, count: 2)
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
