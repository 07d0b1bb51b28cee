import Synchronization

/// Attempts waiting to be written, from every batch a process has in flight. Each writer takes everything that came
/// while it wrote the last ones, so one transaction carries the answers of many batches (a group commit): at a high
/// rate the chunks are large and a row costs little, at a low one an answer is written at once.
///
/// Urgent attempts (the immediate lane's) wait in a line of their own, which every writer serves first and one writer
/// serves alone: so they are written at once, not after a bulk group commit that is under way.
final class RecordQueue: Sendable {
    struct Entry: Sendable {
        let attempts: [DeliveryAttempt]
        let written: CheckedContinuation<RecordedWrite, Never>
    }

    /// What a writer takes: every line, urgent first, or the urgent line only.
    enum Writer: Sendable {
        case any
        case urgentOnly
    }

    private struct State {
        var entries: [Entry] = []
        var urgent: [Entry] = []
        var finished = false
        var writers: [(kind: Writer, continuation: CheckedContinuation<[Entry]?, Never>)] = []

        /// Whether a writer of `kind` has something to take.
        func hasWork(for kind: Writer) -> Bool { !urgent.isEmpty || (kind == .any && !entries.isEmpty) }

        /// For a writer of `kind`: entries from the front of the urgent line, then of the other, up to
        /// ``RecordQueue/largestWrite`` attempts (at least one entry).
        mutating func take(for kind: Writer) -> [Entry] {
            var taken = Self.take(from: &urgent, upTo: RecordQueue.largestWrite)
            if kind == .any {
                let count = taken.reduce(0) { $0 + $1.attempts.count }
                taken += Self.take(from: &entries, upTo: RecordQueue.largestWrite - count, atLeastOne: taken.isEmpty)
            }
            return taken
        }

        private static func take(from line: inout [Entry], upTo limit: Int, atLeastOne: Bool = true) -> [Entry] {
            var count = 0
            var taken = 0
            while taken < line.count, (atLeastOne && taken == 0) || count + line[taken].attempts.count <= limit {
                count += line[taken].attempts.count
                taken += 1
            }
            defer { line.removeFirst(taken) }
            return Array(line.prefix(taken))
        }
    }

    /// Attempts a writer takes at most at once, so one transaction stays short.
    static let largestWrite = 4000

    private let state = Mutex(State())

    /// Attempts waiting for a writer, in both lines.
    var queued: Int {
        state.withLock { state in (state.urgent + state.entries).reduce(0) { $0 + $1.attempts.count } }
    }

    /// Queues `attempts`, in the urgent line if `urgent`, and returns, once a writer has written them, the write that
    /// did; nil for no attempts.
    @discardableResult
    func record(_ attempts: [DeliveryAttempt], urgent: Bool = false) async -> RecordedWrite? {
        guard !attempts.isEmpty else { return nil }
        return await withCheckedContinuation { (written: CheckedContinuation<RecordedWrite, Never>) in
            let handOff = state.withLock { state -> (CheckedContinuation<[Entry]?, Never>, [Entry])? in
                let entry = Entry(attempts: attempts, written: written)
                if urgent { state.urgent.append(entry) } else { state.entries.append(entry) }
                // An urgent entry goes to the urgent writer when it is idle, so the others stay free for the rest.
                let idle =
                    urgent
                    ? state.writers.firstIndex { $0.kind == .urgentOnly } ?? state.writers.indices.first
                    : state.writers.firstIndex { $0.kind == .any }
                guard let idle else { return nil }
                let writer = state.writers.remove(at: idle)
                return (writer.continuation, state.take(for: writer.kind))
            }
            if let (writer, entries) = handOff { writer.resume(returning: entries) }
        }
    }

    /// For a writer of `kind`: what is waiting for it, waiting for something if nothing is; nil once finished and
    /// nothing is left for it.
    func next(for kind: Writer = .any) async -> [Entry]? {
        await withCheckedContinuation { (writer: CheckedContinuation<[Entry]?, Never>) in
            let now = state.withLock { state -> [Entry]?? in
                if state.hasWork(for: kind) { return .some(state.take(for: kind)) }
                if state.finished { return .some(nil) }
                state.writers.append((kind, writer))
                return nil
            }
            if let now { writer.resume(returning: now) }
        }
    }

    /// No more attempts will come: idle writers stop, busy ones once nothing is left for them.
    func finish() {
        let idle = state.withLock { state in
            state.finished = true
            defer { state.writers.removeAll() }
            return state.writers.map(\.continuation)
        }
        for writer in idle { writer.resume(returning: nil) }
    }
}
