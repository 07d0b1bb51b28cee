extension String {
    /// The length JSON Schema's `minLength` and `maxLength` count: Unicode code points. Herald's limits count the
    /// same way, so `openapi.yaml` states them exactly (a flag emoji is two, an `e` with a combining accent two).
    public var codePointCount: Int { unicodeScalars.count }

    /// Whether the text holds a control character (C0, DEL or C1) or a line separator (LS, PS): what a one-line
    /// label such as a notification type must not hold, and what PostgreSQL's `[[:cntrl:]]` matches.
    public var containsControlOrLineBreak: Bool {
        unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || [0x2028, 0x2029].contains($0.value)
        }
    }

    /// Whether the text holds a line break (LF, VT, FF, CR, NEL, LS or PS).
    public var containsLineBreak: Bool {
        unicodeScalars.contains { (0x0A...0x0D).contains($0.value) || [0x85, 0x2028, 0x2029].contains($0.value) }
    }
}
