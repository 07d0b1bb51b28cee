import Foundation

/// The text form of a page cursor, a time and a row id: microseconds since 1970 and the id, exact for PostgreSQL's
/// timestamps. At most 16 digits keeps every cursor a client can write inside PostgreSQL's range (until 2286).
enum PageCursorText {
    private static let maximumDigits = 16

    static func make(_ time: Date, _ id: UUID) -> String {
        "\(Int64((time.timeIntervalSince1970 * 1_000_000).rounded()))_\(id.uuidString.lowercased())"
    }

    static func parse(_ text: String) -> (time: Date, id: UUID)? {
        let parts = text.split(separator: "_")
        guard parts.count == 2, (1...maximumDigits).contains(parts[0].count),
            parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
            let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1]))
        else {
            return nil
        }
        return (Date(timeIntervalSince1970: Double(micros) / 1_000_000), id)
    }
}
