import Foundation
import PollSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one thread that runs every connection of a pool: a `poll` loop over their sockets and a shared wake-up pipe.
///
/// One thread rather than one per connection: a turn over all connections costs one `poll`, and the connections no
/// longer compete with each other (and with the caller's tasks) for cores. On the 2-core development machine the
/// client's threads preempting one another cost more than they parallelized. A connection's TCP connect and TLS
/// handshake, which block, run on a short-lived thread of their own (see ``APNsConnection/Loop``), so a reconnect
/// never stalls the other connections.
final class ConnectionThread: Sendable {
    private typealias Served = (connection: APNsConnection, loop: APNsConnection.Loop)

    private let connections: [APNsConnection]
    private let wakePipe: WakePipe
    private let started = Atomic(false)
    /// The loops between ``start()``, which takes them (so a stop from then on waits for them), and the thread.
    private let handover = Mutex<[Served]>([])

    init(connections: [APNsConnection], wakePipe: WakePipe) {
        self.connections = connections
        self.wakePipe = wakePipe
    }

    /// Starts the thread; it ends once every connection has been stopped.
    func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let served: [Served] = connections.compactMap { connection in connection.takeLoop().map { (connection, $0) } }
        handover.withLock { $0 = served }
        let thread = Thread { [self] in run() }
        thread.name = "apns-connections"
        thread.start()
    }

    private func run() {
        // Taken out, so that nothing but this function holds the loops: each is freed as soon as it ends.
        var served = handover.withLock { handed in
            defer { handed = [] }
            return handed
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors: [pollfd] = []
        /// For each polled socket, the index in `served` of its connection.
        var socketOwners: [Int] = []
        while true {
            var index = 0
            while index < served.count {
                if served[index].loop.turn() {
                    index += 1
                } else {
                    Self.end(at: index, of: &served).loopEnded()
                }
            }
            guard !served.isEmpty else { return }

            // Every connection is marked as about to sleep, so that a submission to any of them wakes the thread.
            var mayBlock = true
            for entry in served where !entry.connection.prepareToSleep() { mayBlock = false }
            descriptors.removeAll(keepingCapacity: true)
            socketOwners.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0))
            for (owner, entry) in served.enumerated() {
                guard let socket = entry.loop.pollRequest else { continue }
                descriptors.append(socket)
                socketOwners.append(owner)
            }
            let nextTick = served.lazy.map(\.loop.nextTick).min()!
            let timeout = mayBlock ? nextTick - ContinuousClock.now : .zero
            let ready = poll(&descriptors, nfds_t(descriptors.count), pollMilliseconds(timeout))
            if ready > 0 {
                if descriptors[0].revents != 0 { wakePipe.drain() }
                for (position, owner) in socketOwners.enumerated() where descriptors[position + 1].revents != 0 {
                    served[owner].loop.readAvailable(into: &buffer)
                }
            }
            for entry in served { entry.connection.awake() }
        }
    }

    /// Removes an ended loop, which frees it with its TLS connection before its connection's ``APNsConnection/stop()``
    /// may return; a function of its own, so that no local outlives the removal.
    private static func end(at index: Int, of served: inout [Served]) -> APNsConnection {
        served.remove(at: index).connection
    }
}
