import Synchronization

/// Wakes waiting loops: the engine's workers, expansion, the key router, token renewal and the webhook, each rung by
/// `NOTIFY` or by the code that made new work. Herald's one wake primitive.
///
/// Each ring bumps a generation, so a worker that saw generation g before claiming returns at once
/// from ``wait(after:timeout:)`` if a ring came while it was busy.
package final class Doorbell: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var generation: UInt64 { state.withLock { $0.generation } }

    package func ring() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when rung after `generation`, after `timeout`, or when the task is cancelled.
    package func wait(after generation: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForRing(after: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing(after generation: UInt64) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
