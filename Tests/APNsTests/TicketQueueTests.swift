import APNsCore
import Testing

@testable import APNs

@Suite struct TicketQueueTests {
    @Test func resendsGoFirstInOrderThenTheRest() {
        var queue = TicketQueue()
        for ticket in UInt64(1)...5 { queue.append(ticket) }
        #expect(queue.popFirst() == 1)
        queue.prepend([10, 11])
        queue.prepend([20])
        #expect(queue.count == 7)
        #expect(queue.all == [20, 10, 11, 2, 3, 4, 5])
        #expect(queue.removeAll { $0 == 11 || $0 == 4 } == [11, 4])
        var popped: [UInt64] = []
        while let ticket = queue.popFirst() { popped.append(ticket) }
        #expect(popped == [20, 10, 2, 3, 5])
        #expect(queue.isEmpty)
    }

    @Test func largeQueuesCompactWithoutLosingTickets() {
        var queue = TicketQueue()
        for ticket in UInt64(0)..<5000 { queue.append(ticket) }
        for expected in UInt64(0)..<3000 { #expect(queue.popFirst() == expected) }
        queue.append(5000)
        #expect(queue.count == 2001)
        #expect(queue.all.first == 3000)
        #expect(queue.all.last == 5000)
    }
}
