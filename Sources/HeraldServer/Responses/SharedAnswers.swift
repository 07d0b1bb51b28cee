import Synchronization

/// Shares each computation of an expensive answer among the requests that ask the same question while it runs, and
/// for `freshness(question)` after it is made. A failed computation is not kept. Everything that decides an answer,
/// the caller's app among it, belongs in the question, so an answer is only ever shared with those who could have
/// asked for it themselves.
final class SharedAnswers<Question: Hashable & Sendable, Answer: Sendable, C: Clock>: Sendable
where C.Duration == Duration {
    /// The most questions kept; stale answers are dropped first.
    static var sweepThreshold: Int { 256 }

    private struct Entry {
        let answer: Task<Answer, any Error>
        /// Nil while the answer is being made.
        var madeAt: C.Instant?
    }

    private let clock: C
    private let freshness: @Sendable (Question) -> Duration
    private let make: @Sendable (Question) async throws -> Answer
    private let entries = Mutex<[Question: Entry]>([:])

    init(
        clock: C, freshness: @escaping @Sendable (Question) -> Duration,
        make: @escaping @Sendable (Question) async throws -> Answer
    ) {
        self.clock = clock
        self.freshness = freshness
        self.make = make
    }

    func answer(_ question: Question) async throws -> Answer {
        let now = clock.now
        let task = entries.withLock { entries in
            if let entry = entries[question], isFresh(entry, question, at: now) { return entry.answer }
            if entries.count >= Self.sweepThreshold {
                entries = entries.filter { isFresh($0.value, $0.key, at: now) }
            }
            let make = self.make
            let task = Task { try await make(question) }
            // Past the threshold with every answer still fresh, a new one is made but not kept: a caller asking
            // many different questions costs its own work, never memory for every answer it made.
            if entries.count < Self.sweepThreshold { entries[question] = Entry(answer: task, madeAt: nil) }
            return task
        }
        do {
            let answer = try await task.value
            let madeAt = clock.now
            entries.withLock { entries in
                if entries[question]?.answer == task, entries[question]?.madeAt == nil {
                    entries[question]?.madeAt = madeAt
                }
            }
            return answer
        } catch {
            entries.withLock { entries in
                if entries[question]?.answer == task { entries[question] = nil }
            }
            throw error
        }
    }

    /// Questions kept now.
    var kept: Int { entries.withLock { $0.count } }

    private func isFresh(_ entry: Entry, _ question: Question, at now: C.Instant) -> Bool {
        guard let madeAt = entry.madeAt else { return true }
        return madeAt.duration(to: now) < freshness(question)
    }
}
