import Foundation
import Synchronization
import Testing

@testable import HeraldCore
@testable import HeraldServer

/// `GET /api/v1/stats` answers are shared while counted and for a 8640th of their window, per question.
@Suite struct StatsAnswersTests {
    /// Counts how often each question was counted; each answer's `until` is the count's number.
    final class Counter: Sendable {
        let counted = Mutex(0)
        let failNext = Mutex(false)

        func count(_ question: StatsAnswers<ManualClock>.Question) async throws -> DeliveryStats {
            let number = counted.withLock { value in
                value += 1
                return value
            }
            if failNext.withLock({ $0 }) {
                failNext.withLock { $0 = false }
                throw CancellationError()
            }
            return DeliveryStats(
                since: .distantPast, until: Date(timeIntervalSince1970: Double(number)), types: [], failureReasons: [],
                series: nil)
        }
    }

    static let day = StatsAnswers<ManualClock>.Question(window: .seconds(86_400), buckets: 24, app: nil)

    @Test func freshnessIsAShareOfTheWindowAndAtMostAMinute() {
        #expect(StatsAnswers<ManualClock>.freshness(of: .seconds(86_400)) == .seconds(10))
        #expect(StatsAnswers<ManualClock>.freshness(of: .seconds(3_600)) < .milliseconds(420))
        #expect(StatsAnswers<ManualClock>.freshness(of: .seconds(90 * 86_400)) == .seconds(60))
    }

    @Test func anAnswerServesItsQuestionUntilItIsStale() async throws {
        let clock = ManualClock()
        let counter = Counter()
        let answers = StatsAnswers(clock: clock, count: counter.count)
        #expect(try await answers.answer(Self.day).until.timeIntervalSince1970 == 1)
        clock.advance(by: .seconds(9))
        #expect(try await answers.answer(Self.day).until.timeIntervalSince1970 == 1, "still fresh")
        var otherApp = Self.day
        otherApp.app = "b"
        #expect(try await answers.answer(otherApp).until.timeIntervalSince1970 == 2, "another app, another count")
        var otherBuckets = Self.day
        otherBuckets.buckets = nil
        #expect(try await answers.answer(otherBuckets).until.timeIntervalSince1970 == 3)
        clock.advance(by: .seconds(1))
        #expect(try await answers.answer(Self.day).until.timeIntervalSince1970 == 4, "stale after 10 s")
    }

    @Test func concurrentQuestionsShareOneCount() async throws {
        let counter = Counter()
        let answers = StatsAnswers(clock: ManualClock()) { question in
            try await Task.sleep(for: .milliseconds(200))
            return try await counter.count(question)
        }
        let untils = try await withThrowingTaskGroup(of: Date.self) { group in
            for _ in 0..<20 { group.addTask { try await answers.answer(Self.day).until } }
            return try await group.reduce(into: Set<Date>()) { $0.insert($1) }
        }
        #expect(untils.count == 1)
        #expect(counter.counted.withLock { $0 } == 1)
    }

    @Test func aFailedCountIsNotKept() async throws {
        let counter = Counter()
        counter.failNext.withLock { $0 = true }
        let answers = StatsAnswers(clock: ManualClock(), count: counter.count)
        await #expect(throws: CancellationError.self) { try await answers.answer(Self.day) }
        #expect(try await answers.answer(Self.day).until.timeIntervalSince1970 == 2, "asked again")
    }

    @Test func staleQuestionsAreForgottenOnceThereAreMany() async throws {
        let clock = ManualClock()
        let answers = StatsAnswers(clock: clock, count: Counter().count)
        let many = StatsAnswers<ManualClock>.sweepThreshold
        for minutes in 1...many {
            _ = try await answers.answer(.init(window: .seconds(60 * minutes), buckets: nil, app: nil))
        }
        #expect(answers.kept == many)
        clock.advance(by: .seconds(61))
        _ = try await answers.answer(Self.day)
        #expect(answers.kept == 1)
    }
}
