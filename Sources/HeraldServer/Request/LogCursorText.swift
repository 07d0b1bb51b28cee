import Foundation
import HeraldCore

/// The text form of a page cursor: microseconds since 1970 and the row id, exact for PostgreSQL's timestamps.
/// At most 16 digits keeps every cursor a client can write inside PostgreSQL's range (until the year 2286).
enum LogCursorText {
    private static let maximumDigits = 16

    static func make(_ cursor: DeliveryLogCursor) -> String {
        "\(Int64((cursor.createdAt.timeIntervalSince1970 * 1_000_000).rounded()))_\(cursor.id.uuidString.lowercased())"
    }

    static func parse(_ text: String) -> DeliveryLogCursor? {
        let parts = text.split(separator: "_")
        guard parts.count == 2, (1...maximumDigits).contains(parts[0].count),
            parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
            let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1]))
        else {
            return nil
        }
        return DeliveryLogCursor(createdAt: Date(timeIntervalSince1970: Double(micros) / 1_000_000), id: id)
    }
}
