public import Foundation

/// Parsing and formatting of ISO 8601 timestamps as the notifier's files and Herald's API use them.
public enum ISO8601Timestamp {
    /// Parses `2026-02-19T14:05:00Z`, with or without fractional seconds, with any UTC offset.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) {
            return date
        }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Formats in UTC with whole seconds, e.g. `2026-02-19T14:05:00Z`.
    public static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
