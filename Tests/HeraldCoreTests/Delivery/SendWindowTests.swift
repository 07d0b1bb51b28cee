import Testing

@testable import HeraldCore

/// The permits the workers share: never more than the window out at once, partial grants in turn, cancellation, the
/// reserve.
@Suite struct SendWindowTests {
    @Test func grantsWhatIsFreeAndNoMore() async {
        let window = SendWindow(bounds: InFlightLimit.Bounds(floor: 10, ceiling: 10))
        #expect(await window.acquire(upTo: 4) == 4)
        #expect(await window.acquire(upTo: 500) == 6)
        #expect(window.inUse == 10)
        #expect(await window.acquire(upTo: 0) == 0)
    }

    @Test func waitsForAReleaseAndServesWaitersInTurn() async throws {
        let window = SendWindow(bounds: InFlightLimit.Bounds(floor: 4, ceiling: 4))
        #expect(await window.acquire(upTo: 4) == 4)
        let first = Task { await window.acquire(upTo: 3) }
        try await Self.waitUntilQueued(window, first)
        let second = Task { await window.acquire(upTo: 3) }
        try await Task.sleep(for: .milliseconds(20))
        window.release(2)
        #expect(await first.value == 2)
        window.release(2)
        #expect(await second.value == 2)
        #expect(window.inUse == 4)
    }

    @Test func aCancelledWaiterTakesNothing() async throws {
        let window = SendWindow(bounds: InFlightLimit.Bounds(floor: 1, ceiling: 1))
        #expect(await window.acquire(upTo: 1) == 1)
        let waiting = Task { await window.acquire(upTo: 1) }
        try await Self.waitUntilQueued(window, waiting)
        waiting.cancel()
        #expect(await waiting.value == 0)
        window.release(1)
        #expect(window.inUse == 0)
        #expect(await Task { await window.acquire(upTo: 1) }.value == 1)
    }

    /// The reserve stays free for its own senders, who take it ahead of a general sender waiting in line; its
    /// permits go back to it.
    @Test func theReserveIsKeptFreeAndTakenAheadOfTheLine() async throws {
        let window = SendWindow(bounds: InFlightLimit.Bounds(floor: 32, ceiling: 32), reservedFraction: 1.0 / 16)
        #expect(window.reserve == 2)
        #expect(await window.acquire(upTo: 100) == 30, "general senders fill the window less the reserve")
        let general = Task { await window.acquire(upTo: 10, atLeast: 4) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(await window.acquire(upTo: 10, from: .reserve) == 2)
        #expect(window.reserveInUse == 2 && window.inUse == 32)
        window.release(4)
        #expect(await general.value == 4)
        let reserved = Task { await window.acquire(upTo: 10, from: .reserve) }
        try await Task.sleep(for: .milliseconds(20))
        window.release(1, to: .reserve)
        #expect(await reserved.value == 1, "a reserve sender takes the reserve's permit before anyone else")
        #expect(window.reserveInUse == 2)
    }

    /// A window of one keeps no reserve, so general senders are never shut out.
    @Test func aWindowOfOneKeepsNoReserve() async {
        let window = SendWindow(bounds: InFlightLimit.Bounds(floor: 1, ceiling: 1), reservedFraction: 1.0 / 16)
        #expect(window.reserve == 0)
        #expect(await window.acquire(upTo: 5) == 1)
    }

    /// Gives `task` time to queue behind the full window: it must not have returned.
    static func waitUntilQueued(_ window: SendWindow, _ task: Task<Int, Never>) async throws {
        try await Task.sleep(for: .milliseconds(20))
        #expect(window.inUse == window.limit)
    }
}
