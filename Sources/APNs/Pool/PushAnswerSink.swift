import APNsCore
import Synchronization

/// The receiving end of one batch: each connection hands it the answers of a turn at once, and the last answer
/// ends the stream.
final class PushAnswerSink: Sendable {
    /// How many answers the batch expects in all.
    let size: Int
    private let output: PushAnswers.Continuation
    private let unanswered: Atomic<Int>
    private let abandoned = Atomic(false)

    init(output: PushAnswers.Continuation, count: Int) {
        self.output = output
        size = count
        unanswered = Atomic(count)
    }

    /// The consumer left the stream. A cancelled stream is finished only after its termination handler returns, so
    /// answers yielded meanwhile (the connections answering the cancelled tickets) would still reach the consumer
    /// that left; from now on they are dropped.
    func abandon() {
        abandoned.store(true, ordering: .releasing)
    }

    func deliver(_ answers: [PushAnswer]) {
        guard !abandoned.load(ordering: .acquiring) else { return }
        output.yield(answers)
        // Every other connection's chunks were yielded before its count went down, so finishing here loses none.
        if unanswered.subtract(answers.count, ordering: .acquiringAndReleasing).newValue == 0 { output.finish() }
    }
}
