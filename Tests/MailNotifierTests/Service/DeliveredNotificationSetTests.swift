import MailNotifier
import Testing

@Suite("DeliveredNotificationSet (NOTIF-17, NFR-NOTIF-03)")
struct DeliveredNotificationSetTests {
    func entry(_ index: Int, thread: String = "T") -> DeliveredNotification {
        DeliveredNotification(emailId: EmailID(rawValue: "e\(index)"), threadId: ThreadID(rawValue: thread))
    }

    @Test func acN26BelowCapacityAddsWithoutEviction() {
        var set = DeliveredNotificationSet()
        for index in 0..<9_999 {
            #expect(set.insert(entry(index)) == nil)
        }
        #expect(set.count == 9_999)
        #expect(set.contains("e0"))
    }

    @Test func e23AtCapacityTheOldestIsEvictedFirst() {
        var set = DeliveredNotificationSet(entries: (0..<10_000).map { entry($0) })
        #expect(set.count == 10_000)
        #expect(set.insert(entry(10_000)) == entry(0))
        #expect(set.count == 10_000)
        #expect(!set.contains("e0"))
        #expect(set.contains("e1"))
        #expect(set.contains("e10000"))
        #expect(set.insert(entry(10_001)) == entry(1))
        #expect(set.entries.first == entry(2))
        #expect(set.entries.last == entry(10_001))
    }

    @Test func duplicateInsertIsIgnored() {
        var set = DeliveredNotificationSet(capacity: 2)
        set.insert(entry(1))
        set.insert(entry(1))
        set.insert(entry(2))
        #expect(set.entries == [entry(1), entry(2)])
    }

    @Test func rebuildKeepsTheNewestWhenOverCapacity() {
        let set = DeliveredNotificationSet(capacity: 2, entries: [entry(1), entry(2), entry(3)])
        #expect(set.entries == [entry(2), entry(3)])
    }

    @Test func emailIdsByThread() {
        let set = DeliveredNotificationSet(entries: [
            entry(1, thread: "A"), entry(2, thread: "B"), entry(3, thread: "A"),
        ])
        #expect(set.emailIds(inThread: "A") == ["e1", "e3"])
        #expect(set.emailIds(inThread: "C").isEmpty)
    }
}
