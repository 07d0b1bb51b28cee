/// Why a migration run stopped. Its description names the file and says what to do.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// An applied migration's file no longer matches what was applied.
        case edited
        /// A script failed; nothing of that migration was kept (unless it runs outside a transaction).
        case scriptFailed
        /// `down` needs a reverse script the migration does not have, or a file that is missing.
        case irreversible
        /// Two files claim the same version, or a file name does not follow the pattern.
        case invalidFiles
    }

    public let kind: Kind
    public let fileName: String
    public let line: Int?
    public let message: String

    public init(kind: Kind, fileName: String, line: Int? = nil, message: String) {
        self.kind = kind
        self.fileName = fileName
        self.line = line
        self.message = message
    }

    public var description: String {
        let place = line.map { "\(fileName):\($0)" } ?? fileName
        return "\(place): \(message)"
    }
}
