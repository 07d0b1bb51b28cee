import HeraldCore
import Hummingbird
import NIOCore

/// `/metrics` for Prometheus. Unauthenticated, as scrapers expect; it holds counts only, never tokens or ids.
struct MetricsRoutes {
    let metrics: DeliveryMetrics?

    func register(on table: RouteTable) {
        table.on(.get, "/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: PrometheusText.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(string: PrometheusText.render(metrics?.snapshot()))))
        }
    }
}
