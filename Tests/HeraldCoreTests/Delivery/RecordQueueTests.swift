import Foundation
import Testing
import Tracing

@testable import HeraldCore

/// The writers' queue: the immediate lane's attempts wait in a line of their own, which one writer serves alone and
/// every writer serves first.
@Suite(.timeLimit(.minutes(1))) struct RecordQueueTests {
    static func attempt() -> DeliveryAttempt { .sent(DeliveryPlannerTests.delivery()) }

    static let write = RecordedWrite(
        interval: TraceInterval(start: DefaultTracerClock.now, end: DefaultTracerClock.now), committed: true)

    static func ids(_ entries: [RecordQueue.Entry]?) -> [UUID] {
        (entries ?? []).flatMap(\.attempts).map(\.delivery.id)
    }

    /// While the general writers are all busy, an urgent attempt goes to the urgent writer, which never takes the
    /// bulk attempts queued before it.
    @Test func theUrgentWriterTakesOnlyUrgentAttempts() async throws {
        let queue = RecordQueue()
        let bulk = Self.attempt()
        let urgent = Self.attempt()
        let bulkRecorded = Task { await queue.record([bulk]) }
        let urgentWriter = Task { await queue.next(for: .urgentOnly) }
        while queue.queued < 1 { await Task.yield() }
        let urgentRecorded = Task { await queue.record([urgent], urgent: true) }
        let taken = await urgentWriter.value
        #expect(Self.ids(taken) == [urgent.delivery.id])
        let general = await queue.next(for: .any)
        #expect(Self.ids(general) == [bulk.delivery.id], "the bulk attempt waited for a general writer")
        for entry in (taken ?? []) + (general ?? []) { entry.written.resume(returning: Self.write) }
        #expect(await urgentRecorded.value?.committed == true)
        #expect(await bulkRecorded.value?.committed == true)
    }

    /// A general writer takes what waits in the urgent line before the rest, whatever came first.
    @Test func aGeneralWriterTakesUrgentAttemptsFirst() async throws {
        let queue = RecordQueue()
        let bulk = Self.attempt()
        let urgent = Self.attempt()
        let bulkRecorded = Task { await queue.record([bulk]) }
        while queue.queued < 1 { await Task.yield() }
        let urgentRecorded = Task { await queue.record([urgent], urgent: true) }
        while queue.queued < 2 { await Task.yield() }
        let taken = await queue.next(for: .any)
        #expect(Self.ids(taken) == [urgent.delivery.id, bulk.delivery.id])
        for entry in taken ?? [] { entry.written.resume(returning: Self.write) }
        _ = await (bulkRecorded.value, urgentRecorded.value)
        queue.finish()
        #expect(await queue.next(for: .urgentOnly) == nil)
    }
}
