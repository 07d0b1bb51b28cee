import Foundation

/// Text spelled into SQL statements that are fixed at build time (names of jsonb keys, Herald's own reasons), where a
/// bound parameter cannot go: a prepared statement's constant, or a key inside a larger expression.
enum SQLText {
    /// `text` as an SQL string literal, quotes doubled.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
