public import Foundation

/// Reads an RFC 3339 `date-time` (what OpenAPI's `format: date-time` names) as the instant it denotes.
///
/// Foundation's ISO 8601 parser refuses valid RFC 3339 text (offsets beyond ±18:00, a lowercase `t` or `z`) and
/// reads years before 1582 in the Julian calendar; this one takes every RFC 3339 date-time, proleptic Gregorian,
/// and nothing else: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, a leap second `:60` counting as the next second.
public enum RFC3339Timestamp {
    public static func parse(_ text: String) -> Date? {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
            let day = reader.number(2), reader.skip("T", orLowercase: true), let hour = reader.number(2),
            reader.skip(":"), let minute = reader.number(2), reader.skip(":"), let second = reader.number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if reader.skip(".") {
            guard let digits = reader.fractionDigits() else { return nil }
            fraction = digits
        }
        guard let offsetSeconds = reader.offset(), reader.atEnd else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Walks ASCII bytes for ``RFC3339Timestamp``.
private struct DigitReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    /// Exactly `count` decimal digits.
    mutating func number(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard let digit = Self.digit(byte) else { return nil }
            value = value * 10 + digit
        }
        index += count
        return value
    }

    mutating func skip(_ character: Character, orLowercase: Bool = false) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue else { return false }
        let byte = bytes[index]
        guard byte == ascii || (orLowercase && byte == ascii | 0x20) else { return false }
        index += 1
        return true
    }

    /// One or more digits after the decimal point, as a fraction of a second.
    mutating func fractionDigits() -> Double? {
        var fraction = 0.0
        var scale = 0.1
        let start = index
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            fraction += Double(digit) * scale
            scale /= 10
            index += 1
        }
        return index > start ? fraction : nil
    }

    /// `Z` (or `z`) or `±HH:MM`, as seconds east of UTC.
    mutating func offset() -> Int? {
        if skip("Z", orLowercase: true) { return 0 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else {
            return nil
        }
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let hours = number(2), skip(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
