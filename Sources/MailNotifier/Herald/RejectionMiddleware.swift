import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Turns an error status into ``HeraldError/rejected(status:code:message:field:)`` before the generated client
/// decodes the answer: with the code, message and field of Herald's `{"error", "message", "field"}` body, or the
/// status and the body's start when it has none. Read here rather than from the typed answers, because the
/// document's `Error` schema lists the codes as a closed enum, so a code it does not list yet, or a proxy's
/// plain-text page, would otherwise surface as a decoding failure instead of a refusal.
struct RejectionMiddleware: ClientMiddleware {
    /// Enough for Herald's error bodies; a longer one is cut, as only its start is shown.
    static let bodyLimit = 64 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind != .successful else { return (response, responseBody) }
        var data = Data()
        if let responseBody {
            for try await chunk in responseBody {
                data.append(contentsOf: chunk.prefix(Self.bodyLimit - data.count))
                if data.count >= Self.bodyLimit { break }
            }
        }
        throw Self.rejection(status: response.status.code, body: data)
    }

    static func rejection(status: Int, body: Data) -> HeraldError {
        if let error = try? JSONDecoder().decode(ErrorBody.self, from: body) {
            return .rejected(status: status, code: error.error, message: error.message ?? "", field: error.field)
        }
        return .rejected(
            status: status, code: "http-\(status)", message: String(decoding: body.prefix(200), as: UTF8.self),
            field: nil)
    }

    private struct ErrorBody: Decodable {
        let error: String
        let message: String?
        let field: String?
    }
}

/// Herald's timestamps: written as ISO 8601 in UTC with whole seconds, read with or without fractional seconds.
struct HeraldDateTranscoder: DateTranscoder {
    struct NotATimestamp: Error, CustomStringConvertible {
        let text: String
        var description: String { "not an ISO 8601 timestamp: \(text)" }
    }

    func encode(_ date: Date) throws -> String { ISO8601Timestamp.format(date) }

    func decode(_ text: String) throws -> Date {
        guard let date = ISO8601Timestamp.parse(text) else { throw NotATimestamp(text: text) }
        return date
    }
}
