import Hummingbird
import Logging

/// One log line per request: method, path, status and duration. Never headers, query strings or bodies, which may
/// hold credentials or device tokens.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: Int(response.status.code), since: start)
            return response
        } catch let error as APIError {
            log(request, context, status: Int(error.status.code), since: start)
            throw error
        } catch {
            log(request, context, status: 500, since: start)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = start.duration(to: .now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "\(request.method) \(request.uri.path) \(status)",
            metadata: ["http.status": "\(status)", "http.duration_ms": "\(Int(milliseconds.rounded()))"])
    }
}
