import HTTPTypes
import HeraldCore
import Hummingbird
import Logging
import NIOCore

/// Turns every error into Herald's error body, so clients see one shape whatever failed. Unexpected errors are
/// logged and answered as 500 without detail.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    /// What the router serves, to tell a wrong method (405) from a path nobody serves (404).
    let routes: RouteShapes

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as DomainError {
            throw error.apiError
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge
        } catch let error as HTTPError {
            switch error.status {
            case .notFound:
                let allowed = routes.methods(forPath: request.uri.path)
                guard allowed.isEmpty else {
                    var error = APIError(.methodNotAllowed, .methodNotAllowed, "method not allowed here")
                    error.allowedMethods = allowed
                    throw error
                }
                throw APIError.notFound("no such route")
            case .methodNotAllowed: throw APIError(.methodNotAllowed, .methodNotAllowed, "method not allowed here")
            case .contentTooLarge: throw APIError.payloadTooLarge
            default: throw APIError(error.status, .validationFailed, error.body ?? error.status.reasonPhrase)
            }
        } catch  where DatabaseInput.isRefusedValue(error) {
            // A check before the database should have named the field; log it so that check gets written.
            context.logger.warning("the database refused a request's value", metadata: ["error": "\(error)"])
            throw APIError.validation("a value in the request cannot be stored", field: nil)
        } catch  where DatabaseAvailability.ranOutOfTime(error) {
            context.logger.warning("a request's statement ran out of time", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, .unavailable, "the request took longer than Herald allows; retry later")
        } catch  where DatabaseAvailability.isUnavailable(error) {
            context.logger.error("database unavailable", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, .unavailable, "the database is unavailable")
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, .internalError, "internal error")
        }
    }
}
