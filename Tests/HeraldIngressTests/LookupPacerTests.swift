import Testing

@testable import HeraldIngress

/// The pacing arithmetic, with time passed in.
@Suite struct LookupPacerTests {
    @Test func aBurstGoesAtOnceThenOneEachInterval() {
        var schedule = LookupPacer.Schedule(perSecond: 10, burst: 3, now: .seconds(100))
        let waits = (0..<6).map { _ in schedule.book(at: .seconds(100)) }
        #expect(waits == [.zero, .zero, .zero, .milliseconds(100), .milliseconds(200), .milliseconds(300)])
    }

    @Test func quietTimeGivesTheBurstBackAndNoMore() {
        var schedule = LookupPacer.Schedule(perSecond: 10, burst: 2, now: .zero)
        for _ in 0..<4 { _ = schedule.book(at: .zero) }
        #expect(!schedule.isIdle(at: .milliseconds(300)))
        #expect(schedule.isIdle(at: .milliseconds(400)))
        // An hour later, still two at once, not an hour's worth.
        let waits = (0..<3).map { _ in schedule.book(at: .seconds(3600)) }
        #expect(waits == [.zero, .zero, .milliseconds(100)])
    }
}
