import APNsCore
import Synchronization

/// The receiving end of one batch: each connection hands it the answers of a turn at once, and the last answer
/// ends the stream.
final class PushAnswerSink: Sendable {
    private let output: PushAnswers.Continuation
    private let unanswered: Atomic<Int>

    init(output: PushAnswers.Continuation, count: Int) {
        self.output = output
        unanswered = Atomic(count)
    }

    func deliver(_ answers: [PushAnswer]) {
        output.yield(answers)
        // Every other connection's chunks were yielded before its count went down, so finishing here loses none.
        if unanswered.subtract(answers.count, ordering: .acquiringAndReleasing).newValue == 0 { output.finish() }
    }
}
