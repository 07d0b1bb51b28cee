/// A FIFO of request tickets that can also take tickets back at the front (for resends).
struct TicketQueue: Sendable, Equatable {
    private var storage: [UInt64] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }

    mutating func append(_ ticket: UInt64) { storage.append(ticket) }

    /// Puts `tickets` before everything queued, keeping their order.
    mutating func prepend(_ tickets: [UInt64]) {
        guard !tickets.isEmpty else { return }
        storage.replaceSubrange(0..<head, with: [])
        head = 0
        storage.insert(contentsOf: tickets, at: 0)
    }

    mutating func popFirst() -> UInt64? {
        guard head < storage.count else { return nil }
        let ticket = storage[head]
        head += 1
        if head > 1024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return ticket
    }

    /// Removes and returns every ticket matching `predicate`.
    mutating func removeAll(where predicate: (UInt64) -> Bool) -> [UInt64] {
        var removed: [UInt64] = []
        var kept: [UInt64] = []
        kept.reserveCapacity(count)
        for ticket in storage[head...] {
            if predicate(ticket) { removed.append(ticket) } else { kept.append(ticket) }
        }
        storage = kept
        head = 0
        return removed
    }

    var all: ArraySlice<UInt64> { storage[head...] }
}
