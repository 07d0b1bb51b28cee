import Foundation

/// Warnings go to standard error, so standard output stays one JSON decision per line.
enum StandardError {
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("mail-notifier: warning: \(message)\n".utf8))
    }
}
