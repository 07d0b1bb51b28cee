import HeraldCore
import Hummingbird
import Logging
import NIOCore

/// Probes and the API's own description; none needs credentials.
struct HealthRoutes {
    let services: HeraldServices
    let openAPIDocument: String?

    private struct Status: ResponseEncodable { var status: String }

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/healthz", method: .get) { _, _ in Status(status: "ok") }
        router.on("/readyz", method: .get) { _, context in
            do {
                try await services.checkDatabase()
            } catch {
                context.logger.warning("readiness check failed", metadata: ["error": "\(error)"])
                throw APIError(.serviceUnavailable, .unavailable, "the database is unreachable")
            }
            return Status(status: "ready")
        }
        router.on("/openapi.yaml", method: .get) { _, _ in
            guard let openAPIDocument else { throw APIError.notFound("no OpenAPI document was found at startup") }
            return Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: openAPIDocument)))
        }
    }
}
