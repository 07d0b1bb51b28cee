import Foundation
import Logging
import Synchronization

/// Cancels one running statement on the server at most once (its task was cancelled, or its deadline passed), and
/// holds the session back until a cancel request in flight has been dispatched, so that request can only reach the
/// statement it was meant for, or find the session idle and do nothing; never the session's next statement.
final class StatementCancellation: Sendable {
    private enum State {
        /// The statement runs; nothing was sent.
        case armed
        /// A cancel request is being sent; these wait for it to be dispatched.
        case sending([CheckedContinuation<Void, Never>])
        /// No request will be sent any more.
        case finished
    }

    private let state = Mutex(State.armed)
    private let request: LibPQCancel
    private let logger: Logger

    init(request: LibPQCancel, logger: Logger) {
        self.request = request
        self.logger = logger
    }

    /// Sends the cancel request on a thread of its own (it blocks while it connects), unless one was sent already
    /// or the statement finished.
    func cancel() {
        let starts = state.withLock { state -> Bool in
            guard case .armed = state else { return false }
            state = .sending([])
            return true
        }
        guard starts else { return }
        Thread.detachNewThread { [self] in
            do {
                try request.send()
            } catch {
                logger.debug("a statement could not be cancelled", metadata: ["postgres.error": "\(error)"])
            }
            dispatched()
        }
    }

    /// Ends it once the statement returned: no request is sent from now on, and one in flight has been dispatched
    /// when this returns.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumesNow = state.withLock { state -> Bool in
                guard case .sending(var waiters) = state else {
                    state = .finished
                    return true
                }
                waiters.append(continuation)
                state = .sending(waiters)
                return false
            }
            if resumesNow { continuation.resume() }
        }
    }

    private func dispatched() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .sending(let waiters) = state else { return [] }
            state = .finished
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
