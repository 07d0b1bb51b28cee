import Foundation
import MailNotifier

/// Medians for the performance table of the notification spec (§4 of its validation plan):
/// pipeline on 50 emails, one filter, content building, dedup lookup at 10,000 entries, and the
/// end-to-end batch with a notification center that does nothing.

/// Runs `body` `iterations` times per round and returns the median time of one call over all rounds.
func median(rounds: Int = 101, iterations: Int, _ body: () -> Int) -> (Duration, Int) {
    let clock = ContinuousClock()
    var samples: [Duration] = []
    var sink = 0
    for _ in 0..<rounds {
        let start = clock.now
        for _ in 0..<iterations {
            sink &+= body()
        }
        samples.append((clock.now - start) / iterations)
    }
    samples.sort()
    return (samples[samples.count / 2], sink)
}

func asyncMedian(rounds: Int = 101, iterations: Int, _ body: () async -> Int) async -> (Duration, Int) {
    let clock = ContinuousClock()
    var samples: [Duration] = []
    var sink = 0
    for _ in 0..<rounds {
        let start = clock.now
        for _ in 0..<iterations {
            sink &+= await body()
        }
        samples.append((clock.now - start) / iterations)
    }
    samples.sort()
    return (samples[samples.count / 2], sink)
}

func format(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    return nanoseconds < 1_000
        ? String(format: "%.1f ns", nanoseconds) : String(format: "%.2f µs", nanoseconds / 1_000)
}

struct SilentCenter: NotificationCenterProviding {
    func add(_ content: NotificationContent) async throws(HeraldError) {}
    func removeDeliveredNotifications(withIdentifiers identifiers: [NotificationRequestID]) async throws(HeraldError) {}
    func setBadgeCount(_ count: Int) async throws(HeraldError) {}
}

let now = Date(timeIntervalSince1970: 1_771_502_400)
var settings = NotificationSettings(timeZone: TimeZone(identifier: "Europe/Berlin")!)
settings.addVIPContact("boss@example.com")
for index in 0..<100 {
    settings.toggleMuteThread(ThreadID(rawValue: "muted-\(index)"))
}
settings.setNotificationCategory(.promotions, enabled: false)
settings.quietHoursEnabled = true
try settings.setQuietHours(start: 1320, end: 420)

let categories: [AICategory?] = [nil, .primary, .social, .updates, .promotions]
let emails = (0..<50).map { index in
    Email(
        id: EmailID.stable(accountId: AccountID(rawValue: "acct-\(index % 3)"), messageId: "<\(index)@example.com>"),
        threadId: ThreadID(rawValue: "thread-\(index % 20)"),
        accountId: AccountID(rawValue: "acct-\(index % 3)"),
        fromAddress: index % 10 == 0 ? "boss@example.com" : "sender\(index)@example.com",
        fromName: "Sender \(index)",
        subject: "Subject number \(index)",
        snippet: String(repeating: "Lorem ipsum dolor sit amet. ", count: 8),
        dateReceived: now.addingTimeInterval(-Double(index)),
        isSpam: index % 17 == 0,
        aiCategory: categories[index % categories.count],
        folderTypes: index % 7 == 0 ? [.archive] : [.inbox])
}
let pipeline = NotificationFilterPipeline.standard
let context = FilterContext(settings: settings, now: now)

var results: [(String, Duration, String)] = []

let (pipelineTime, sink1) = median(iterations: 200) { pipeline.filter(emails, in: context).count }
results.append(("Filter pipeline, 50 emails, 8 filters", pipelineTime, "< 50 ms"))

var minuteOffset = 0.0
let (contextTime, sink2) = median(iterations: 2_000) {
    minuteOffset += 60
    return FilterContext(settings: settings, now: now.addingTimeInterval(minuteOffset)).minuteOfDay
}
results.append(("Filter context (calendar in time zone), once per batch", contextTime, "—"))

let quietHours = QuietHoursFilter()
// Contexts across the day, so each call has different input and cannot be hoisted out of the loop.
let dayContexts = (0..<64).map { FilterContext(settings: settings, now: now.addingTimeInterval(Double($0) * 1_350)) }
var contextIndex = 0
let (singleTime, sink3) = median(iterations: 100_000) {
    contextIndex = (contextIndex + 1) & 63
    return quietHours.shouldNotify(for: emails[contextIndex % 50], in: dayContexts[contextIndex]) ? 1 : 0
}
results.append(("Single filter (quiet hours), 1 email", singleTime, "< 1 ms"))

var vipIndex = 0
let (vipTime, sink4) = median(iterations: 100_000) {
    vipIndex = (vipIndex + 1) % 50
    return VIPContactFilter().shouldNotify(for: emails[vipIndex], in: context) ? 1 : 0
}
results.append(("Single filter (VIP, lowercases the address), 1 email", vipTime, "< 1 ms"))

var contentIndex = 0
let (contentTime, sink5) = median(iterations: 20_000) {
    contentIndex = (contentIndex + 1) % 50
    return NotificationContentBuilder.build(from: emails[contentIndex]).body.utf8.count
}
results.append(("Content building, 1 email", contentTime, "< 5 ms"))

let delivered = DeliveredNotificationSet(
    entries: (0..<10_000).map { DeliveredNotification(emailId: EmailID(rawValue: "email-\($0)"), threadId: "t") })
let probes = (0..<64).map { EmailID(rawValue: "email-\($0 * 150)") }
var probeIndex = 0
let (dedupTime, sink6) = median(iterations: 200_000) {
    probeIndex = (probeIndex + 1) & 63
    return delivered.contains(probes[probeIndex]) ? 1 : 0
}
results.append(("Dedup lookup, 10,000 entries", dedupTime, "< 0.1 ms"))

let frozenSettings = settings
let service = NotificationService(
    center: SilentCenter(), settings: { frozenSettings }, mailbox: Mailbox(emails: emails), now: { now })
await service.markFirstLaunchComplete()
let (batchTime, sink7) = await asyncMedian(iterations: 50) {
    await service.rebuildDelivered(from: [])
    return await service.processNewEmails(emails, fromBackground: true, activeFolderType: nil).notifiedIds.count
}
results.append(("processNewEmails, 50 emails, no-op center", batchTime, "< 100 ms"))

print("| Metric | Median | Spec hard limit |")
print("|---|---|---|")
for (name, time, limit) in results {
    print("| \(name) | \(format(time)) | \(limit) |")
}
print("checksum \(sink1 &+ sink2 &+ sink3 &+ sink4 &+ sink5 &+ sink6 &+ sink7)")
