import APNsCore
import Synchronization

/// Apple's answers to one claimed batch, gathered as they arrive and taken all at once by the recorder. While one
/// chunk is being written the next one grows, so chunks follow the rate (a group commit) and an answer waits for
/// at most one write before it is recorded.
final class AnswerMailbox: Sendable {
    private struct State {
        /// Every push not yet answered.
        var unanswered: Set<Int>
        var arrived: [SendResult] = []
        var finished = false
        var reader: CheckedContinuation<Void, Never>?

        mutating func wakeReader() -> CheckedContinuation<Void, Never>? {
            defer { reader = nil }
            return reader
        }
    }

    private let state: Mutex<State>

    /// A mailbox for the pushes at `indices` of the batch.
    init(indices: [Int]) {
        state = Mutex(State(unanswered: Set(indices)))
    }

    /// Answers from the transport, each naming its push's index in the batch; one already answered is ignored.
    func deliver(_ answers: [(index: Int, answer: PushAnswer)]) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            for (index, answer) in answers {
                guard state.unanswered.remove(index) != nil else { continue }
                state.arrived.append(SendResult(index: index, result: answer.result, latency: answer.latency.seconds))
            }
            return state.arrived.isEmpty ? nil : state.wakeReader()
        }
        reader?.resume()
    }

    /// No more answers will come: what is unanswered is `.failed(.cancelled)` (the shutdown grace period ended).
    func finish() {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            for index in state.unanswered.sorted() {
                state.arrived.append(SendResult(index: index, result: .failed(.cancelled), latency: 0))
            }
            state.unanswered.removeAll()
            state.finished = true
            return state.wakeReader()
        }
        reader?.resume()
    }

    /// Everything that arrived since the last call, waiting until something does; nil once finished and all taken.
    /// One reader at a time.
    func take() async -> [SendResult]? {
        while true {
            let (taken, finished) = state.withLock { state -> ([SendResult], Bool) in
                defer { state.arrived.removeAll(keepingCapacity: true) }
                return (state.arrived, state.finished)
            }
            if !taken.isEmpty { return taken }
            if finished { return nil }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if !state.arrived.isEmpty || state.finished { return true }
                    state.reader = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
