import Foundation

/// Writes whole lines to standard output without buffering, so progress shows at once even in a pipe or a file.
enum Console {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
