import Testing

@testable import HeraldCore

/// The send window's size as a pure function of how many pushes were in flight when, and how many settled.
@Suite struct InFlightLimitTests {
    static let origin = ContinuousClock.now
    static let bounds = InFlightLimit.Bounds(floor: 64, ceiling: 2000, headroom: 2)

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { origin + .milliseconds(milliseconds) }

    /// Bucket `bucket` (50 ms) had `inFlight` pushes in flight throughout and settled `settled`.
    static func bucket(_ limit: inout InFlightLimit, _ bucket: Int, inFlight: Int, settled: Int) {
        let end = at(bucket * 50 + 49)
        limit.held(inFlight, for: .milliseconds(49), until: end)
        limit.settled(settled, at: end)
    }

    /// A limit whose first 200 ms (buckets 0 to 3) each had `inFlight` in flight and settled `settled`.
    static func afterOneSpan(inFlight: Int, settled: Int) -> InFlightLimit {
        var limit = InFlightLimit(bounds: bounds, startingAt: origin)
        for number in 0..<4 { bucket(&limit, number, inFlight: inFlight, settled: settled) }
        return limit
    }

    @Test func startsAtTheFloor() {
        let limit = InFlightLimit(bounds: Self.bounds, startingAt: Self.origin)
        #expect(limit.value(at: Self.at(0)) == 64)
        #expect(limit.value(at: Self.at(10_000)) == 64)
    }

    @Test func isHeadroomTimesWhatWasInFlightAtTheBestRate() {
        // 200 ms with 200 in flight (49 of each 50 ms): 196 on average, doubled.
        let limit = Self.afterOneSpan(inFlight: 200, settled: 1000)
        // The bucket filling now does not count yet: three of four buckets, 147 on average.
        #expect(limit.value(at: Self.at(180)) == 294)
        #expect(limit.value(at: Self.at(210)) == 392)
    }

    @Test func ofEqualRatesTakesTheSpanWithFewestInFlight() {
        var limit = Self.afterOneSpan(inFlight: 400, settled: 1000)
        // The same rate with half as many in flight: the wider window bought nothing.
        for bucket in 4..<8 { Self.bucket(&limit, bucket, inFlight: 200, settled: 950) }
        #expect(limit.value(at: Self.at(410)) == 392)
        // A better rate counts even with more in flight: of the spans within a tenth of it, the one that still
        // had a bucket of 200 (on average 490).
        for bucket in 8..<12 { Self.bucket(&limit, bucket, inFlight: 600, settled: 1500) }
        #expect(limit.value(at: Self.at(610)) == 981)
    }

    @Test func fallsBackToTheFloorWhenIdle() {
        let limit = Self.afterOneSpan(inFlight: 400, settled: 2000)
        #expect(limit.value(at: Self.at(210)) == 784)
        // The last settled bucket ends at 200 ms; a second of spans after it, none has anything settled.
        #expect(limit.value(at: Self.at(1_150)) == 784)
        #expect(limit.value(at: Self.at(1_400)) == 64)
    }

    @Test func theWindowIsWorkedOutOncePerBucket() {
        var limit = Self.afterOneSpan(inFlight: 200, settled: 1000)
        #expect(limit.window(at: Self.at(210)) == 392)
        // What settles in the bucket filling now counts from the next one on.
        limit.held(2000, for: .milliseconds(10), until: Self.at(220))
        limit.settled(5000, at: Self.at(220))
        #expect(limit.window(at: Self.at(249)) == 392)
        #expect(limit.window(at: Self.at(250)) == limit.value(at: Self.at(250)))
        #expect(limit.value(at: Self.at(250)) > 392)
    }

    @Test func aBurstEarnsItsWindowAsItDelivers() {
        // 1,000 in flight would double to 1,960, but the burst has settled only 800: an eighth of it.
        var limit = Self.afterOneSpan(inFlight: 1000, settled: 200)
        #expect(limit.value(at: Self.at(210)) == 100)
        // After an idle second a burst starts from nothing again.
        for bucket in 30..<34 { Self.bucket(&limit, bucket, inFlight: 1000, settled: 60) }
        #expect(limit.value(at: Self.at(1_710)) == 64)
    }

    @Test func boundsHold() {
        let narrow = InFlightLimit.Bounds(floor: 500, ceiling: 100, headroom: 0.5)
        #expect(narrow.floor == 100 && narrow.ceiling == 100 && narrow.headroom == 1)
        var limit = InFlightLimit(bounds: InFlightLimit.Bounds(floor: 10, ceiling: 50), startingAt: Self.origin)
        for bucket in 0..<4 { Self.bucket(&limit, bucket, inFlight: 400, settled: 1000) }
        #expect(limit.value(at: Self.at(210)) == 50)
    }

    /// While the window is what holds the rate back it grows every 50 ms; once the rest of the machine sets the pace
    /// it stops, at the headroom times the first window that reached that pace, and stays there.
    @Test func growsUntilSomethingElseSetsThePace() {
        var limit = InFlightLimit(bounds: Self.bounds, startingAt: Self.origin)
        var windows: [Int] = []
        for bucket in 0..<40 {
            let window = limit.value(at: Self.at(bucket * 50))
            windows.append(window)
            // A full window turns over every 10 ms round trip, but the machine settles at most 1,000 per 50 ms.
            Self.bucket(&limit, bucket, inFlight: window, settled: min(window * 5, 1000))
        }
        #expect(windows.prefix(9) == [64, 64, 64, 95, 141, 179, 235, 319, 429])
        #expect(windows.suffix(31).allSatisfy { $0 == 429 })
    }
}
