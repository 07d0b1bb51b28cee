import Foundation

/// One schema change: a numbered forward script and, usually, the script that reverses it.
public struct Migration: Sendable, Identifiable {
    /// Orders migrations; unique.
    public let version: Int
    /// A short description, such as `create_users`.
    public let name: String
    public let up: MigrationScript
    /// The reverse of `up`; `nil` when the change cannot be undone.
    public let down: MigrationScript?
    /// A digest of `up`'s text: an applied migration whose file changed afterwards is refused.
    public let checksum: String

    public var id: Int { version }

    public init(version: Int, name: String, up: MigrationScript, down: MigrationScript?, checksum: String) {
        self.version = version
        self.name = name
        self.up = up
        self.down = down
        self.checksum = checksum
    }
}

/// The SQL text of one migration direction, as read from its file.
public struct MigrationScript: Sendable {
    /// The first line a script writes to run outside a transaction (needed by `CREATE INDEX CONCURRENTLY`).
    public static let noTransactionMarker = "-- herald:no-transaction"

    public let sql: String
    /// The file the script came from, for messages.
    public let fileName: String
    public let runsInTransaction: Bool

    public init(sql: String, fileName: String) {
        // Editors on some systems start files with a byte-order mark, which PostgreSQL would read as SQL.
        self.sql = sql.hasPrefix("\u{FEFF}") ? String(sql.dropFirst()) : sql
        self.fileName = fileName
        let firstLine = self.sql.unicodeScalars.prefix { $0 != "\n" }
        let marker = String(String.UnicodeScalarView(firstLine)).trimmingCharacters(
            in: .whitespaces.union(["\r"]))
        runsInTransaction = marker != Self.noTransactionMarker
    }

    /// The 1-based line holding the 1-based character `position` the server reported. PostgreSQL counts code
    /// points, and `\r\n` is two of them, so this counts Unicode scalars.
    func line(atCharacter position: Int) -> Int {
        sql.unicodeScalars.prefix(max(position - 1, 0)).reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }
}
