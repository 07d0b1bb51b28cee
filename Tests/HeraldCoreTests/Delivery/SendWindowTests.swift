import Testing

@testable import HeraldCore

/// The permits the workers share: never more than the window out at once, partial grants in turn, cancellation.
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

    /// Gives `task` time to queue behind the full window: it must not have returned.
    static func waitUntilQueued(_ window: SendWindow, _ task: Task<Int, Never>) async throws {
        try await Task.sleep(for: .milliseconds(20))
        #expect(window.inUse == window.limit)
    }
}
