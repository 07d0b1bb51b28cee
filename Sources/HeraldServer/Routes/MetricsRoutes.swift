import Cryptography
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

/// `/metrics` for Prometheus. Open, as scrapers expect, unless a key is set; it holds counts and ids (apps, teams,
/// signing keys), never tokens or key material.
struct MetricsRoutes {
    static let path = "/metrics"
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry: PrometheusCollectorRegistry
    let deliversHere: Bool
    /// `HERALD_METRICS_KEY`: when set, the bearer credential a scraper must send.
    let key: String?

    func register(on router: Router<HeraldRequestContext>) {
        registry.makeGauge(
            descriptor: .herald(
                "herald_delivery_engine_running", help: "Whether this process runs the delivery engine.")
        )
        .set(to: deliversHere ? 1 : 0)
        let expected = key.map { SHA256.hash(Array($0.utf8)) }
        router.on(RouterPath(Self.path), method: .get) { request, _ in
            if let expected {
                // Compared as digests, so the time taken says nothing of how much of the key a guess got right.
                let header = request.headers[.authorization] ?? ""
                let scheme = header.prefix(7).lowercased()
                guard scheme == "bearer ", SHA256.hash(Array(header.dropFirst(7).utf8)) == expected else {
                    throw APIError.unauthorized("send Authorization: Bearer <HERALD_METRICS_KEY>")
                }
            }
            return Response(
                status: .ok, headers: [.contentType: Self.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
