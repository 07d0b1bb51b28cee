import Synchronization

/// Attempts waiting to be written, from every batch a process has in flight. Each writer takes everything that came
/// while it wrote the last ones, so one transaction carries the answers of many batches (a group commit): at a high
/// rate the chunks are large and a row costs little, at a low one an answer is written at once.
final class RecordQueue: Sendable {
    struct Entry: Sendable {
        let attempts: [DeliveryAttempt]
        let written: CheckedContinuation<RecordedWrite, Never>
    }

    private struct State {
        var entries: [Entry] = []
        var finished = false
        var writers: [CheckedContinuation<[Entry]?, Never>] = []

        /// Entries from the front, up to ``RecordQueue/largestWrite`` attempts (at least one entry).
        mutating func take() -> [Entry] {
            var count = 0
            var taken = 0
            while taken < entries.count, taken == 0 || count + entries[taken].attempts.count <= RecordQueue.largestWrite
            {
                count += entries[taken].attempts.count
                taken += 1
            }
            defer { entries.removeFirst(taken) }
            return Array(entries.prefix(taken))
        }
    }

    /// Attempts a writer takes at most at once, so one transaction stays short.
    static let largestWrite = 4000

    private let state = Mutex(State())

    /// Queues `attempts` and returns, once a writer has written them, the write that did; nil for no attempts.
    @discardableResult
    func record(_ attempts: [DeliveryAttempt]) async -> RecordedWrite? {
        guard !attempts.isEmpty else { return nil }
        return await withCheckedContinuation { (written: CheckedContinuation<RecordedWrite, Never>) in
            let handOff = state.withLock { state -> (CheckedContinuation<[Entry]?, Never>, [Entry])? in
                state.entries.append(Entry(attempts: attempts, written: written))
                guard !state.writers.isEmpty else { return nil }
                return (state.writers.removeFirst(), state.take())
            }
            if let (writer, entries) = handOff { writer.resume(returning: entries) }
        }
    }

    /// For a writer: what is waiting, waiting for something if nothing is; nil once finished and empty.
    func next() async -> [Entry]? {
        await withCheckedContinuation { (writer: CheckedContinuation<[Entry]?, Never>) in
            let now = state.withLock { state -> [Entry]?? in
                if !state.entries.isEmpty { return .some(state.take()) }
                if state.finished { return .some(nil) }
                state.writers.append(writer)
                return nil
            }
            if let now { writer.resume(returning: now) }
        }
    }

    /// No more attempts will come: idle writers stop, busy ones once the queue is empty.
    func finish() {
        let idle = state.withLock { state in
            state.finished = true
            defer { state.writers.removeAll() }
            return state.writers
        }
        for writer in idle { writer.resume(returning: nil) }
    }
}
