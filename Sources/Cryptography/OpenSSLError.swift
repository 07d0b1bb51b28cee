internal import COpenSSL

/// An OpenSSL failure, with the messages OpenSSL queued for the failing call.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable {
    /// The OpenSSL function that failed.
    public let function: String
    /// OpenSSL's own error strings, oldest first.
    public let details: [String]

    init(function: String) {
        self.function = function
        self.details = Self.drainQueue()
    }

    public var description: String {
        details.isEmpty ? "\(function) failed" : "\(function) failed: \(details.joined(separator: "; "))"
    }

    /// Empties OpenSSL's thread-local error queue, returning its messages.
    static func drainQueue() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }
}
