import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird

/// Reads `Authorization: Bearer …`: an API key (`hk_…`, looked up by its hash) or a user token (a JWT).
/// Every route under `/api/v1/` needs credentials, so a request there without the header is a 401 at once, before
/// anything reads its path, query or body: an anonymous caller learns nothing about what it sent. Elsewhere (health,
/// metrics, the dashboard page) it passes on unauthenticated, whatever the header holds: `/metrics` checks its own
/// key. A header that does not authenticate is a 401 at once.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    static let actingUserHeader = HTTPField.Name("X-Herald-User")!
    static let apiPrefix = "/api/v1/"

    let keys: APIKeyStore
    let userTokens: UserTokenVerifier

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.path.hasPrefix(Self.apiPrefix) else { return try await next(request, context) }
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("send Authorization: Bearer <API key or user token>")
        }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw APIError.unauthorized("the Authorization header must be Bearer <token>")
        }
        let credential = Self.trimmed(header.dropFirst(7))
        var context = context
        if credential.hasPrefix(APIKeyStore.keyPrefix) {
            guard let key = try await keys.authenticate(credential) else {
                throw APIError.unauthorized("unknown or revoked API key")
            }
            var actingFor: ExternalID?
            if let user = request.headers[Self.actingUserHeader] {
                guard let id = ExternalID(user) else { throw JSONObject.badID("X-Herald-User") }
                actingFor = id
            }
            context.identity = .apiKey(key, actingFor: actingFor)
        } else {
            do {
                context.identity = .user(try userTokens.verify(credential))
            } catch {
                throw APIError.unauthorized(error.description)
            }
        }
        return try await next(request, context)
    }

    /// `text` without surrounding whitespace. A credential that starts and ends with printable ASCII, as every valid
    /// one does, is taken as it is: trimming goes through NSString on Linux, a noticeable share of a request.
    static func trimmed(_ text: Substring) -> String {
        let printable: ClosedRange<UInt8> = 0x21...0x7E
        if let first = text.utf8.first, let last = text.utf8.last, printable.contains(first), printable.contains(last) {
            return String(text)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
