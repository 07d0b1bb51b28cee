/// The ids of emails already notified (NOTIF-17), bounded by FIFO eviction (NFR-NOTIF-03).
///
/// A ring buffer keeps insertion order and a dictionary answers lookups, so `contains` and `insert`
/// are O(1) whatever the size.
public struct DeliveredNotificationSet: Sendable {
    public static let defaultCapacity = 10_000

    public let capacity: Int
    private var ring: [DeliveredNotification?]
    private var oldestIndex = 0
    private var threadOfEmail: [EmailID: ThreadID]

    /// - Parameters:
    ///   - capacity: the most entries kept; must be positive.
    ///   - entries: earlier deliveries, oldest first, e.g. from a state file. Beyond `capacity`, the
    ///     oldest are dropped.
    public init(capacity: Int = DeliveredNotificationSet.defaultCapacity, entries: [DeliveredNotification] = []) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
        self.ring = []
        self.ring.reserveCapacity(min(capacity, max(entries.count, 16)))
        self.threadOfEmail = [:]
        for entry in entries {
            insert(entry)
        }
    }

    public var count: Int { threadOfEmail.count }

    public func contains(_ emailId: EmailID) -> Bool {
        threadOfEmail[emailId] != nil
    }

    /// Records a delivery; when full, the oldest entry is evicted first and returned.
    @discardableResult
    public mutating func insert(_ entry: DeliveredNotification) -> DeliveredNotification? {
        guard threadOfEmail[entry.emailId] == nil else { return nil }
        threadOfEmail[entry.emailId] = entry.threadId
        if ring.count < capacity {
            ring.append(entry)
            return nil
        }
        let evicted = ring[oldestIndex]
        ring[oldestIndex] = entry
        oldestIndex = (oldestIndex + 1) % capacity
        if let evicted {
            threadOfEmail[evicted.emailId] = nil
        }
        return evicted
    }

    /// The delivered emails of a thread, in delivery order.
    public func emailIds(inThread thread: ThreadID) -> [EmailID] {
        entries.lazy.filter { $0.threadId == thread }.map(\.emailId)
    }

    /// Every entry, oldest first.
    public var entries: [DeliveredNotification] {
        let ordered = ring[oldestIndex...] + ring[..<oldestIndex]
        return ordered.compactMap { $0 }
    }
}
