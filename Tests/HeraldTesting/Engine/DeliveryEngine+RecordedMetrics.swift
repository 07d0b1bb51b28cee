public import HeraldCore
import MetricsTestKit

/// What an engine made by ``EngineHarness`` recorded, read back from the test factory the harness gave it.
public struct RecordedMetrics {
    let factory: TestMetrics

    /// `herald_deliveries_sent_total`, both lanes.
    public var sent: Int { DeliveryLane.allCases.reduce(0) { $0 + sent(in: $1) } }

    /// `herald_deliveries_sent_total` for `lane`.
    public func sent(in lane: DeliveryLane) -> Int {
        Int((try? factory.expectCounter(DeliveryMetrics.Name.sent, [("lane", lane.rawValue)]))?.totalValue ?? 0)
    }

    /// `herald_deliveries_failed_total` for `reason`, both lanes.
    public func failed(reason: DeliveryReason) -> Int {
        DeliveryLane.allCases.reduce(0) { total, lane in
            total
                + Int(
                    (try? factory.expectCounter(
                        DeliveryMetrics.Name.failed, [("lane", lane.rawValue), ("reason", reason.text)]))?.totalValue
                        ?? 0)
        }
    }

    /// `herald_deactivations_withheld_total`.
    public var withheldDeactivations: Int {
        Int((try? factory.expectCounter(DeliveryMetrics.Name.withheld))?.totalValue ?? 0)
    }

    /// Every value `herald_apns_backoff_seconds` took, in order.
    public var backoffSeconds: [Double] {
        (try? factory.expectGauge(DeliveryMetrics.Name.backoff))?.values ?? []
    }

    /// `herald_deliveries_in_flight`.
    public var inFlight: Int {
        Int((try? factory.expectMeter(DeliveryMetrics.Name.inFlight))?.lastValue ?? 0)
    }

    /// `herald_paused_keys`.
    public var pausedKeys: Int {
        Int((try? factory.expectGauge(DeliveryMetrics.Name.pausedKeys))?.lastValue ?? 0)
    }
}

extension DeliveryEngine {
    /// The metrics this engine recorded; only for engines made by ``EngineHarness/makeEngine(_:client:webhook:)``.
    public var recorded: RecordedMetrics {
        guard let factory = metrics.factory as? TestMetrics else {
            preconditionFailure("the engine was not made by EngineHarness, so its metrics cannot be read back")
        }
        return RecordedMetrics(factory: factory)
    }
}
