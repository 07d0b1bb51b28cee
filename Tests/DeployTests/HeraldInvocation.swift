import Foundation

/// Runs the built `herald` with the arguments a deployment file gives it, without a database, to prove that the
/// command and its options exist: a usage error exits 64, while a well-formed command gets as far as looking for
/// its database.
enum HeraldInvocation {
    /// `herald` sits beside the test bundle in the build folder.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("herald")

    struct Outcome {
        let status: Int32
        let output: String

        /// Whether the arguments parsed and passed validation, so only the missing database stopped the command.
        var reachedDatabase: Bool { output.contains("no database") }
    }

    static func run(_ arguments: [String]) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        // A file rather than a pipe, which could fill while nobody reads it.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-deploy-test-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return Outcome(status: status, output: try String(contentsOf: outputURL, encoding: .utf8))
    }
}
