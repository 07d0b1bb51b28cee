import APNsCore

/// A FIFO of request tickets that can also take tickets back at the front (for resends), both in
/// amortised constant time per ticket.
struct TicketQueue: Sendable, Equatable {
    /// Tickets put back at the front, stored reversed so the next one is `last`.
    private var front: [UInt64] = []
    private var storage: [UInt64] = []
    private var head = 0

    var isEmpty: Bool { front.isEmpty && head == storage.count }
    var count: Int { front.count + storage.count - head }

    mutating func append(_ ticket: UInt64) { storage.append(ticket) }

    /// Puts `tickets` before everything queued, keeping their order.
    mutating func prepend(_ tickets: [UInt64]) {
        front.append(contentsOf: tickets.reversed())
    }

    mutating func popFirst() -> UInt64? {
        if let ticket = front.popLast() { return ticket }
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
        let everything = all
        front = []
        storage = []
        head = 0
        var removed: [UInt64] = []
        for ticket in everything {
            if predicate(ticket) { removed.append(ticket) } else { storage.append(ticket) }
        }
        return removed
    }

    /// Every ticket, in the order they would be popped.
    var all: [UInt64] { front.reversed() + storage[head...] }
}
