public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// Sends Herald's credential with every request of a generated ``Client``: `Authorization: Bearer <credential>`,
/// an API key (`hk_…`) or a user's token. Its description hides the credential, so it cannot reach a log.
public struct BearerAuthentication: ClientMiddleware, CustomStringConvertible {
    private let credential: String

    public init(credential: String) { self.credential = credential }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(credential)"
        return try await next(request, body, baseURL)
    }

    public var description: String { "BearerAuthentication(****)" }
}
