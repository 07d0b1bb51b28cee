import Foundation
import Synchronization

/// A thread of its own that runs submitted jobs one at a time, in order.
///
/// libpq's calls block, and a `PGconn` must stay on one thread, so every connection gets one of these: blocking
/// work never lands on Swift's cooperative thread pool, and the handle is only ever touched from this thread.
final class DedicatedThread: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var isStopping = false
    }

    private let queue = Mutex(Queue())
    private let wakeUp = NSCondition()
    private let name: String

    init(name: String) {
        self.name = name
        let thread = Thread { [self] in self.runLoop() }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the thread and returns its result to the awaiting task.
    func run<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = submit { continuation.resume(with: Swift.Result { try job() }) }
            if !accepted {
                continuation.resume(throwing: PostgresError(kind: .connectionClosed, message: "\(name) has stopped"))
            }
        }
    }

    /// Finishes the jobs already queued and then `finalJob`, and ends the thread.
    func stop(finally finalJob: @escaping @Sendable () -> Void = {}) {
        queue.withLock { state in
            guard !state.isStopping else { return }
            state.jobs.append(finalJob)
            state.isStopping = true
        }
        wakeUp.lock()
        wakeUp.signal()
        wakeUp.unlock()
    }

    private func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = queue.withLock { state -> Bool in
            guard !state.isStopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted {
            wakeUp.lock()
            wakeUp.signal()
            wakeUp.unlock()
        }
        return accepted
    }

    private func runLoop() {
        while true {
            wakeUp.lock()
            var batch: [@Sendable () -> Void] = []
            var stopping = false
            while true {
                (batch, stopping) = queue.withLock { state in
                    defer { state.jobs.removeAll(keepingCapacity: true) }
                    return (state.jobs, state.isStopping)
                }
                if !batch.isEmpty || stopping { break }
                wakeUp.wait()
            }
            wakeUp.unlock()
            for job in batch { job() }
            if stopping && batch.isEmpty { return }
        }
    }
}
