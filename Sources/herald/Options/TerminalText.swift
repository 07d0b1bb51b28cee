/// Text from outside (API input) made safe to print on a terminal.
enum TerminalText {
    /// `text` with every control character (C0, DEL and C1, which include ESC and CSI) written as `\u{…}`, so
    /// input cannot move the cursor, recolour or retitle the terminal, or hide what came before it.
    static func escapingControls(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
