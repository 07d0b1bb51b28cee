import Foundation
import HeraldCore

/// The text form of a page cursor: microseconds since 1970 and the row id, exact for PostgreSQL's timestamps.
enum LogCursorText {
    static func make(_ cursor: DeliveryLogCursor) -> String {
        "\(Int64((cursor.createdAt.timeIntervalSince1970 * 1_000_000).rounded()))_\(cursor.id.uuidString.lowercased())"
    }

    static func parse(_ text: String) -> DeliveryLogCursor? {
        let parts = text.split(separator: "_")
        guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            return nil
        }
        return DeliveryLogCursor(createdAt: Date(timeIntervalSince1970: Double(micros) / 1_000_000), id: id)
    }
}
