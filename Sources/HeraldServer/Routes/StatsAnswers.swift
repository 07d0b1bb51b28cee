import HeraldCore
import Synchronization

/// Shares each computation of `GET /api/v1/stats` among the requests that ask the same question (window, buckets
/// and app) while it runs, and for a short while after: a 8640th of its window (0.4 s for an hour, 10 s for a day)
/// and at most a minute. A dashboard in many tabs, or a client asking for 90 days in a loop, then costs one scan per
/// minute instead of one per request; the answer's `until` says when it was counted. A failed computation is not
/// kept, and questions are confined to their app as before: the app is part of the question.
final class StatsAnswers<C: Clock>: Sendable where C.Duration == Duration {
    struct Question: Hashable, Sendable {
        var window: Duration
        var buckets: Int?
        var app: String?
    }

    /// Questions kept before finished, stale answers are dropped.
    static var sweepThreshold: Int { 256 }

    /// How long an answer about `window` serves again after it is counted.
    static func freshness(of window: Duration) -> Duration { min(window / 8640, .seconds(60)) }

    private struct Entry {
        let answer: Task<DeliveryStats, any Error>
        /// Nil while the answer is being counted.
        var countedAt: C.Instant?
    }

    private let clock: C
    private let count: @Sendable (Question) async throws -> DeliveryStats
    private let entries = Mutex<[Question: Entry]>([:])

    init(clock: C, count: @escaping @Sendable (Question) async throws -> DeliveryStats) {
        self.clock = clock
        self.count = count
    }

    func answer(_ question: Question) async throws -> DeliveryStats {
        let now = clock.now
        let task = entries.withLock { entries in
            if let entry = entries[question], isFresh(entry, question, at: now) { return entry.answer }
            if entries.count >= Self.sweepThreshold {
                entries = entries.filter { isFresh($0.value, $0.key, at: now) }
            }
            let count = self.count
            let task = Task { try await count(question) }
            entries[question] = Entry(answer: task, countedAt: nil)
            return task
        }
        do {
            let stats = try await task.value
            let countedAt = clock.now
            entries.withLock { entries in
                if entries[question]?.answer == task, entries[question]?.countedAt == nil {
                    entries[question]?.countedAt = countedAt
                }
            }
            return stats
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
        guard let countedAt = entry.countedAt else { return true }
        return countedAt.duration(to: now) < Self.freshness(of: question.window)
    }
}
