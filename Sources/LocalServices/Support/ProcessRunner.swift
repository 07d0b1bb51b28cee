public import Foundation

/// A command that exited unsuccessfully, with what it printed.
public struct CommandError: Error, CustomStringConvertible, Sendable {
    public let command: String
    public let status: Int32
    public let output: String

    public var description: String {
        "\(command) exited with status \(status)" + (output.isEmpty ? "" : ":\n\(output)")
    }
}

/// What a finished program printed (standard output and error together) and how it exited.
public struct ProgramOutcome: Sendable {
    public let status: Int32
    public let output: String
}

/// Runs programs to completion without blocking a Swift concurrency thread: short helpers (`initdb`,
/// `pg_config`) and, in tests, Herald's own executables.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` and returns its combined output.
    ///
    /// - Throws: ``CommandError`` when it exits with a non-zero status.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let outcome = try await outcome(of: URL(fileURLWithPath: executable), arguments)
        guard outcome.status == 0 else {
            throw CommandError(
                command: ([executable] + arguments).joined(separator: " "), status: outcome.status,
                output: outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return outcome.output
    }

    /// Runs `executable` until it exits, whatever its status.
    /// - Parameter environment: The program's whole environment; `nil` passes this process's on.
    public static func outcome(
        of executable: URL, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> ProgramOutcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        // Output goes to a file rather than a pipe: nothing depends on a pipe reaching end-of-file (a daemon a
        // program starts keeps it open) or on someone reading a pipe before its buffer fills.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-command-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil),
            let output = try? FileHandle(forWritingTo: outputURL)
        else {
            throw CommandError(command: executable.path, status: -1, output: "cannot create \(outputURL.path)")
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
        return ProgramOutcome(status: status, output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "")
    }
}
