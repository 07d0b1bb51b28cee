import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird

/// Reads `Authorization: Bearer …`: an API key (`hk_…`, looked up by its hash) or a user token (a JWT).
/// Every route under `/api/v1/` needs credentials, so a request there without the header is a 401 at once, before
/// anything reads its path, query or body: an anonymous caller learns nothing about what it sent. Elsewhere (health,
/// metrics, the dashboard page) it passes on unauthenticated, whatever the header holds: `/metrics` checks its own
/// key. A header that does not authenticate is a 401 at once, and one whose value has neither a key's nor a JWT's
/// shape (``BearerCredential``) is refused before any lookup.
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
        guard let credential = BearerCredential(Self.trimmed(header.dropFirst(7))) else {
            throw APIError.unauthorized("the bearer value is neither an API key (hk_…) nor a user token (a JWT)")
        }
        var context = context
        switch credential {
        case .apiKey(let secret):
            guard let key = try await keys.authenticate(secret) else {
                throw APIError.unauthorized("unknown or revoked API key")
            }
            var actingFor: ExternalID?
            if let user = request.headers[Self.actingUserHeader] {
                guard let id = ExternalID(user), !id.isReservedForHerald else {
                    throw JSONObject.badID("X-Herald-User")
                }
                actingFor = id
            }
            context.identity = .apiKey(key, actingFor: actingFor)
        case .userToken(let token):
            do {
                context.identity = .user(try userTokens.verify(token))
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
