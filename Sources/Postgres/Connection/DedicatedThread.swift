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

    private struct Ending {
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let queue = Mutex(Queue())
    private let ending = Mutex(Ending())
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

    /// Like ``stop(finally:)``, and returns once the thread has run its last job and left its loop.
    func stopAndWait(finally finalJob: @escaping @Sendable () -> Void = {}) async {
        stop(finally: finalJob)
        await withCheckedContinuation { continuation in
            let ended = ending.withLock { state -> Bool in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
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
            if stopping && batch.isEmpty { break }
        }
        let waiters = ending.withLock { state in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
