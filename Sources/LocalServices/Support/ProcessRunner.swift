import Foundation

/// A command that exited unsuccessfully, with what it printed.
public struct CommandError: Error, CustomStringConvertible, Sendable {
    public let command: String
    public let status: Int32
    public let output: String

    public var description: String {
        "\(command) exited with status \(status)" + (output.isEmpty ? "" : ":\n\(output)")
    }
}

/// Runs short helper programs (`initdb`, `pg_config`) without blocking a Swift concurrency thread.
enum ProcessRunner {
    /// Runs `executable` with `arguments` and returns its combined output.
    ///
    /// - Throws: ``CommandError`` when it exits with a non-zero status.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Output goes to a file rather than a pipe, so nothing depends on the pipe reaching end-of-file.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-command-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil),
            let output = try? FileHandle(forWritingTo: outputURL)
        else {
            throw CommandError(command: executable, status: -1, output: "cannot create \(outputURL.path)")
        }
        defer {
            try? output.close()
            try? FileManager.default.removeItem(at: outputURL)
        }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw CommandError(
                command: ([executable] + arguments).joined(separator: " "), status: status,
                output: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return text
    }
}
