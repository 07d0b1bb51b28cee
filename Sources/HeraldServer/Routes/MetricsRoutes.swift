import Hummingbird
import NIOCore
import Prometheus

/// `/metrics` for Prometheus. Unauthenticated, as scrapers expect; it holds counts only, never tokens or ids.
struct MetricsRoutes {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry: PrometheusCollectorRegistry
    let deliversHere: Bool

    func register(on router: Router<HeraldRequestContext>) {
        registry.makeGauge(
            name: "herald_delivery_engine_running", help: "Whether this process runs the delivery engine."
        )
        .set(to: deliversHere ? 1 : 0)
        router.on("/metrics", method: .get) { _, _ in
            Response(
                status: .ok, headers: [.contentType: Self.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
