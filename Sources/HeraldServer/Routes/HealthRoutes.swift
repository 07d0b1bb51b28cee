import HeraldCore
import Hummingbird
import Logging
import NIOCore

/// Probes and the API's own description; none needs credentials.
struct HealthRoutes {
    let services: HeraldServices
    let openAPIDocument: String?

    private struct Status: Encodable { var status: String }

    func register(on table: RouteTable) {
        table.on(.get, "/healthz") { _, _ in try JSONResponse.make(Status(status: "ok")) }
        table.on(.get, "/readyz") { _, context in
            do {
                try await services.checkDatabase()
            } catch {
                context.logger.warning("readiness check failed", metadata: ["error": "\(error)"])
                throw APIError(.serviceUnavailable, .unavailable, "the database is unreachable")
            }
            return try JSONResponse.make(Status(status: "ready"))
        }
        table.on(.get, "/openapi.yaml") { _, _ in
            guard let openAPIDocument else { throw APIError.notFound("no OpenAPI document was found at startup") }
            return Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: openAPIDocument)))
        }
    }
}
