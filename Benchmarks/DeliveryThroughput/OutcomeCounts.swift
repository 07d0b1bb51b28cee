import CoreMetrics
import HeraldCore
import Synchronization

/// A metrics factory that keeps the two counts the benchmark waits on (sent, finally failed) and drops the rest,
/// so reading them costs an atomic load.
final class OutcomeCounts: MetricsFactory, Sendable {
    private let sentTotal = AtomicCounter()
    private let failedTotal = AtomicCounter()

    var sent: Int { sentTotal.value }
    var failed: Int { failedTotal.value }

    func waitUntilSent(_ count: Int) async throws {
        while sent < count { try await Task.sleep(for: .milliseconds(2)) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        switch label {
        // Failures come as one counter per reason; all of them add to one total.
        case DeliveryMetrics.Name.sent: sentTotal
        case DeliveryMetrics.Name.failed: failedTotal
        default: NOOPMetricsHandler.instance
        }
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        NOOPMetricsHandler.instance
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { NOOPMetricsHandler.instance }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// A counter whose total can be read.
private final class AtomicCounter: CounterHandler, Sendable {
    private let total = Atomic<Int>(0)

    var value: Int { total.load(ordering: .relaxed) }

    func increment(by amount: Int64) { total.add(Int(amount), ordering: .relaxed) }
    func reset() { total.store(0, ordering: .relaxed) }
}
