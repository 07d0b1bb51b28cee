extension String {
    /// Whether the text may travel as an HTTP/2 header value: no control character (C0, DEL or C1, so no NUL, CR
    /// or LF) and no whitespace at either end. HTTP/2 forbids such a value (RFC 9113 §8.2.1) and a server answers it by
    /// closing the whole connection, so every value bound for a header is held to this where it enters Herald.
    public var isSafeHeaderValue: Bool {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return true }
        return !first.properties.isWhitespace && !last.properties.isWhitespace
            && !unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
