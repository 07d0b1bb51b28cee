/// Why a payload cannot be sent. Checked before anything goes to Apple.
public enum PayloadError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The payload is larger than Apple accepts and cannot be shortened to fit.
    case tooLarge(size: Int, limit: Int)
    /// The payload is not valid JSON, or not a JSON object.
    case notAnObject
    /// Encoding failed.
    case notEncodable(String)

    public var description: String {
        switch self {
        case .tooLarge(let size, let limit): "payload is \(size) bytes; the limit is \(limit)"
        case .notAnObject: "payload is not a JSON object"
        case .notEncodable(let detail): "payload cannot be encoded: \(detail)"
        }
    }
}
