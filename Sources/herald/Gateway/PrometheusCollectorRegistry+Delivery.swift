import CoreMetrics
import HeraldCore
import Prometheus

extension PrometheusCollectorRegistry {
    /// The swift-metrics factory the delivery engine records through into this registry (the one `/metrics`
    /// serves), with the APNs latency histogram's buckets.
    var deliveryMetricsFactory: any MetricsFactory {
        var factory = PrometheusMetricsFactory(registry: self)
        factory.durationHistogramBuckets[DeliveryMetrics.Name.latency] = DeliveryMetrics.latencyBuckets
        return factory
    }
}
