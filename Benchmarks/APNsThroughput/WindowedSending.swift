import APNs
import APNsCore
import HeraldCore
import Synchronization

/// What came back for a run's pushes: latencies (ms) and a count per HTTP status.
struct AnswerTally: Sendable {
    var latencies: [Double] = []
    /// Counted by status in place: naming and hashing a status for every answer showed in the profile.
    var counts = [Int](repeating: 0, count: APNsBench.statusSlots)

    mutating func note(_ result: PushResult, _ latency: Duration) {
        latencies.append(Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15)
        counts[APNsBench.statusSlot(of: result)] += 1
    }

    mutating func merge(_ other: AnswerTally) {
        latencies += other.latencies
        for slot in counts.indices { counts[slot] += other.counts[slot] }
    }
}

/// The pushes not yet taken, which senders take as the delivery engine's workers claim: as many as they hold
/// permits for.
final class PushQueue: Sendable {
    private let requests: [PushRequest]
    private let next = Mutex(0)

    init(_ requests: [PushRequest]) { self.requests = requests }

    var isEmpty: Bool { next.withLock { $0 >= requests.count } }

    /// Up to `count` pushes from the front; fewer (or none) at the end.
    func take(_ count: Int) -> ArraySlice<PushRequest> {
        let start = next.withLock { next in
            defer { next = min(requests.count, next + count) }
            return next
        }
        return requests[start..<min(requests.count, start + count)]
    }
}

extension APNsBench {
    /// One sender of the delivery engine's way: it takes permits from `window` (at least its share, at most a batch),
    /// takes that many pushes, hands them to the pool at once and goes on to the next while their answers come, each
    /// answer returning its permit (the engine returns it once the answer is recorded).
    static func sendAsTheEngine(
        _ queue: PushQueue, batch: Int, senders: Int, window: SendWindow, pool: APNsConnectionPool
    ) async -> AnswerTally {
        await withTaskGroup(of: AnswerTally.self) { group in
            while !queue.isEmpty {
                let permits = await window.acquire(upTo: batch, atLeast: window.limit / senders)
                let part = Array(queue.take(permits))
                window.returnUnused(permits - part.count)
                guard !part.isEmpty else { break }
                let answers = pool.send(part)
                group.addTask {
                    var tally = AnswerTally()
                    for await chunk in answers {
                        for answer in chunk { tally.note(answer.result, answer.latency) }
                        window.release(chunk.count)
                    }
                    return tally
                }
            }
            var total = AnswerTally()
            for await part in group { total.merge(part) }
            return total
        }
    }
}
