import HTTPTypes
import Hummingbird

/// `Cache-Control: no-store` on every API answer, errors included: answers hold emails, settings and delivery logs,
/// which no browser, proxy or CDN between the caller and Herald may keep.
struct NoStoreMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.path.hasPrefix(AuthMiddleware.apiPrefix) else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
