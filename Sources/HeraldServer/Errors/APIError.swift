public import HTTPTypes
public import Hummingbird
import NIOCore

/// The stable error codes of Herald's API.
public enum APIErrorCode: String, Sendable, Codable {
    case invalidJSON = "invalid_json"
    case validationFailed = "validation_failed"
    case unauthorized
    case forbidden
    case notFound = "not_found"
    case conflict
    case payloadTooLarge = "payload_too_large"
    case methodNotAllowed = "method_not_allowed"
    case unavailable
    /// The caller's key or user made more requests than its rate limit allows: 429, retry after `Retry-After`.
    case rateLimited = "rate_limited"
    /// Apple refused what Herald asked for the caller (a broadcast, a channel operation): 502, reason in the message.
    case apnsRefused = "apns_refused"
    case internalError = "internal_error"
}

/// An error answer: `{"error": CODE, "message": TEXT, "field": NAME?}` with its HTTP status.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: APIErrorCode
    public var message: String
    public var field: String?
    /// For 405: the methods the path is served with, sent as `Allow`.
    public var allowedMethods: [String] = []
    /// Whole seconds to wait before retrying, sent as `Retry-After`; a 503 without one says 1.
    public var retryAfterSeconds: Int?

    public init(_ status: HTTPResponse.Status, _ code: APIErrorCode, _ message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    static func invalidJSON(_ message: String) -> APIError { APIError(.badRequest, .invalidJSON, message) }

    static func validation(_ message: String, field: String?) -> APIError {
        APIError(.unprocessableContent, .validationFailed, message, field: field)
    }

    static func unauthorized(_ message: String) -> APIError { APIError(.unauthorized, .unauthorized, message) }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, .forbidden, message) }
    static func notFound(_ message: String, field: String? = nil) -> APIError {
        APIError(.notFound, .notFound, message, field: field)
    }

    /// 429: the caller is over its rate limit; a token is back after `retryAfter` (rounded up to whole seconds).
    static func rateLimited(retryAfter: Duration) -> APIError {
        var error = APIError(
            .tooManyRequests, .rateLimited,
            "too many requests for this API key or user; retry after Retry-After seconds")
        error.retryAfterSeconds = max(1, Int((retryAfter / .seconds(1)).rounded(.up)))
        return error
    }

    static let payloadTooLarge = APIError(.contentTooLarge, .payloadTooLarge, "the request body is too large")

    public var description: String { "\(status.code) \(code.rawValue): \(message)" }

    private struct Body: Encodable {
        var error: String
        var message: String
        var field: String?
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(
            Body(error: code.rawValue, message: message, field: field), from: request, context: context)
        response.status = status
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        if !allowedMethods.isEmpty { response.headers[.allow] = allowedMethods.joined(separator: ", ") }
        // Clients and load balancers back off instead of retrying at once; the pool frees sessions within seconds.
        if let retryAfterSeconds {
            response.headers[.retryAfter] = String(retryAfterSeconds)
        } else if status == .serviceUnavailable {
            response.headers[.retryAfter] = "1"
        }
        return response
    }
}
