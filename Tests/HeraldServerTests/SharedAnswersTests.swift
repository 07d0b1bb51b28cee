import Foundation
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldServer

/// Answers are shared per question while they are made and while fresh; statistics stay fresh for a 8640th of
/// their window.
@Suite struct SharedAnswersTests {
    struct Question: Hashable, Sendable {
        var name: String
        var app: String?
    }

    typealias Answers = SharedAnswers<Question, Int, TestClock>

    /// Numbers the answers it makes, and fails the next one when asked to.
    final class Maker: Sendable {
        let made = Mutex(0)
        let failNext = Mutex(false)

        func make(_ question: Question) async throws -> Int {
            if failNext.withLock({ value in
                defer { value = false }
                return value
            }) {
                throw CancellationError()
            }
            return made.withLock { value in
                value += 1
                return value
            }
        }
    }

    static let day = Question(name: "day", app: nil)

    static func answers(_ clock: TestClock, _ maker: Maker) -> Answers {
        Answers(clock: clock, freshness: { _ in .seconds(10) }, make: maker.make)
    }

    @Test func statisticsStayFreshForAShareOfTheirWindowAndAtMostAMinute() {
        let minute = Duration.seconds(60)
        #expect(StatsRoutes.freshness(of: .seconds(86_400), longest: minute) == .seconds(10))
        #expect(StatsRoutes.freshness(of: .seconds(3_600), longest: minute) < .milliseconds(420))
        #expect(StatsRoutes.freshness(of: .seconds(90 * 86_400), longest: minute) == minute)
        #expect(StatsRoutes.freshness(of: .seconds(86_400), longest: .zero) == .zero, "sharing turned off")
    }

    @Test func anAnswerServesItsQuestionUntilItIsStale() async throws {
        let clock = TestClock()
        let answers = Self.answers(clock, Maker())
        #expect(try await answers.answer(Self.day) == 1)
        clock.advance(by: .seconds(9))
        #expect(try await answers.answer(Self.day) == 1, "still fresh")
        #expect(try await answers.answer(Question(name: "day", app: "b")) == 2, "another app, another answer")
        clock.advance(by: .seconds(1))
        #expect(try await answers.answer(Self.day) == 3, "stale after 10 s")
    }

    @Test func concurrentQuestionsShareOneAnswer() async throws {
        let maker = Maker()
        let answers = Answers(
            clock: TestClock(), freshness: { _ in .zero },
            make: { question in
                try await Task.sleep(for: .milliseconds(200))
                return try await maker.make(question)
            })
        let given = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await answers.answer(Self.day) } }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(given == [1], "made once while it was being made, though never fresh afterwards")
        #expect(try await answers.answer(Self.day) == 2)
    }

    @Test func aFailedAnswerIsNotKept() async throws {
        let maker = Maker()
        maker.failNext.withLock { $0 = true }
        let answers = Self.answers(TestClock(), maker)
        await #expect(throws: CancellationError.self) { try await answers.answer(Self.day) }
        #expect(try await answers.answer(Self.day) == 1, "asked again")
    }

    @Test func staleQuestionsAreForgottenOnceThereAreMany() async throws {
        let clock = TestClock()
        let answers = Self.answers(clock, Maker())
        let many = Answers.sweepThreshold
        for number in 1...many { _ = try await answers.answer(Question(name: "\(number)", app: nil)) }
        #expect(answers.kept == many)
        clock.advance(by: .seconds(11))
        _ = try await answers.answer(Self.day)
        #expect(answers.kept == 1)
    }

    @Test func pastTheThresholdFreshAnswersStayAndNewOnesAreNotKept() async throws {
        let answers = Self.answers(TestClock(), Maker())
        let many = Answers.sweepThreshold
        for number in 1...many { _ = try await answers.answer(Question(name: "\(number)", app: nil)) }
        #expect(try await answers.answer(Self.day) == many + 1, "answered all the same")
        #expect(answers.kept == many, "but not kept")
        #expect(try await answers.answer(Self.day) == many + 2, "so asked again, it is made again")
    }
}
