/// The one rule for a value bound for an HTTP/2 header (`apns-collapse-id`, `apns-topic`, and any header filled from
/// stored content): no control character anywhere (C0, which includes NUL, CR, LF and tab, DEL, or C1, which includes
/// NEL), and no whitespace at either end.
///
/// RFC 9113 §8.2.1 makes a field with such a value malformed, and a server answers it by closing the whole
/// connection (GOAWAY), not the one stream, which would take every other push on that connection along. So such a
/// value is refused where it enters the API, and the transport refuses it again before sending, for content stored
/// before the API checked it.
public enum HeaderValue {
    /// What makes a value unfit for a header.
    public enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// A C0 control character (U+0000 to U+001F: NUL, tab, CR, LF, …), DEL (U+007F) or a C1 control character
        /// (U+0080 to U+009F, NEL among them): what the API's other text rules call control characters too.
        case controlCharacter
        /// Whitespace (space, no-break space, …) as the first or last character.
        case surroundingWhitespace

        public var description: String {
            switch self {
            case .controlCharacter: "must not contain control characters (NUL, CR, LF, tab, DEL, …)"
            case .surroundingWhitespace: "must not start or end with whitespace"
            }
        }
    }

    /// What makes `value` unfit for a header, or nil when it is fit.
    public static func problem(in value: String) -> Problem? {
        // Read as UTF-8 bytes, since the transport asks this of every push: C0 and DEL are the bytes themselves, and
        // C1 is 0xC2 followed by 0x80 to 0x9F.
        var previous: UInt8 = 0
        for byte in value.utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) {
                return .controlCharacter
            }
            previous = byte
        }
        // An ASCII end is whitespace only as a space (the other ASCII whitespace are controls, refused above); only a
        // non-ASCII end needs Unicode's properties, whose lookup showed in the client's profile.
        let bytes = value.utf8
        if let first = bytes.first, first < 0x80 ? first == 0x20 : Self.isWhitespace(value.unicodeScalars.first) {
            return .surroundingWhitespace
        }
        if let last = bytes.last, last < 0x80 ? last == 0x20 : Self.isWhitespace(value.unicodeScalars.last) {
            return .surroundingWhitespace
        }
        return nil
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar?) -> Bool { scalar?.properties.isWhitespace ?? false }

    /// Whether `value` may be sent as a header value.
    public static func isSafe(_ value: String) -> Bool { problem(in: value) == nil }
}
