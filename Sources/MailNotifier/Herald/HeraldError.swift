/// Why Herald did not accept a request. The description names no API key and no device token.
public enum HeraldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No connection could be made, or it broke before an answer arrived.
    case unreachable(reason: String)
    /// Herald did not answer within the configured time.
    case timeout(after: Duration)
    /// Herald answered with an error status and its `{"error", "message", "field"}` body.
    case rejected(status: Int, code: String, message: String, field: String?)
    /// Herald answered success with a body that is not the expected one (`{"id": …}`, a page of interactions).
    case invalidResponse(status: Int, reason: String)
    /// The request could not be built (e.g. its JSON could not be encoded).
    case invalidRequest(reason: String)

    /// A short machine-readable code, used as the reason in `mail-notifier` output.
    public var code: String {
        switch self {
        case .unreachable: "herald-unreachable"
        case .timeout: "herald-timeout"
        case .rejected(let status, let code, _, _): "herald-rejected-\(status)-\(code)"
        case .invalidResponse: "herald-invalid-response"
        case .invalidRequest: "invalid-request"
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let reason): "Herald unreachable: \(reason)"
        case .timeout(let after): "Herald did not answer within \(after)"
        case .rejected(let status, let code, let message, let field):
            "Herald rejected the request (\(status) \(code)\(field.map { ", field \($0)" } ?? "")): \(message)"
        case .invalidResponse(let status, let reason): "unexpected answer from Herald (\(status)): \(reason)"
        case .invalidRequest(let reason): "cannot build the request: \(reason)"
        }
    }
}
