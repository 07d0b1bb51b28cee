internal import CLibPQ
import Foundation

/// Where and how to connect: a `postgres://` URL or a `key=value` connection string, as libpq reads them.
///
/// `description` hides the password, so a configuration can be logged.
public struct PostgresConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
    /// The URL or key=value string, as given.
    let connectionString: String
    /// Settings libpq uses unless the connection string names them.
    public var applicationName = "herald"
    public var connectTimeout: Duration = .seconds(10)
    /// The longest a statement may run before the server cancels it (SQLSTATE 57014), set on each session when it
    /// opens; `nil` keeps the server's setting. Herald sets it on the API's sessions only.
    public var statementTimeout: Duration?

    /// Parses `connectionString` without connecting.
    ///
    /// - Throws: ``PostgresError`` `.connectionFailed` with libpq's reason when the string is malformed.
    public init(_ connectionString: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let reason = errorMessage.map { String(cString: $0) } ?? "out of memory"
            errorMessage.map { PQfreemem($0) }
            // libpq's reason may quote the whole string, password included.
            throw PostgresError(
                kind: .connectionFailed,
                message: "invalid database URL: "
                    + Self.redactingPassword(reason.trimmingCharacters(in: .whitespacesAndNewlines))
            )
        }
        PQconninfoFree(options)
        self.connectionString = connectionString
    }

    /// Keyword/value pairs for `PQconnectdbParams`; the connection string comes last so that it wins.
    var connectParameters: [(String, String)] {
        [
            ("application_name", applicationName),
            ("connect_timeout", String(max(Int(connectTimeout.components.seconds), 1))),
            // Notice a silently dropped network within about a minute and a half, not the kernel's two hours.
            ("keepalives", "1"),
            ("keepalives_idle", "60"),
            ("keepalives_interval", "10"),
            ("keepalives_count", "3"),
            ("dbname", connectionString),
        ]
    }

    public var description: String { Self.redactingPassword(connectionString) }

    public var customMirror: Mirror { Mirror(self, children: ["connection": description]) }

    /// Replaces the password of a URL (`user:secret@`) or a `password=` pair with `****`.
    static func redactingPassword(_ text: String) -> String {
        var redacted = text
        guard let scheme = redacted.range(of: "://") else {
            guard let pair = try? Regex(#"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)"#) else { return redacted }
            return redacted.replacing(pair, with: "password=****")
        }
        if let at = redacted[scheme.upperBound...].firstIndex(of: "@") {
            let userInfo = redacted[scheme.upperBound..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                redacted.replaceSubrange(redacted.index(after: colon)..<at, with: "****")
            }
        }
        if let parameter = try? Regex(#"([?&]password=)[^&]*"#) {
            redacted = redacted.replacing(parameter) { match in "\(match.output[1].substring ?? "")****" }
        }
        return redacted
    }
}
