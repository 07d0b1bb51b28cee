import APNsCore
import Synchronization

/// One batch: its requests, which the connections read in place until they are answered, and the receiving end of
/// its answers. Each connection hands it the answers of a turn at once, and the last answer ends the stream.
final class PushAnswerSink: Sendable {
    /// How many answers the batch expects in all.
    let size: Int
    private let requests: [PushRequest]
    private let output: PushAnswers.Continuation
    private let unanswered: Atomic<Int>
    private let abandoned = Atomic(false)

    init(output: PushAnswers.Continuation, requests: [PushRequest]) {
        self.output = output
        self.requests = requests
        size = requests.count
        unanswered = Atomic(requests.count)
    }

    /// Runs `body` with the request at `index` in the batch, without copying it.
    func withRequest<Result, Failure: Error>(
        at index: Int, _ body: (borrowing PushRequest) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try requests.withUnsafeBufferPointer { (requests) throws(Failure) -> Result in try body(requests[index]) }
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
