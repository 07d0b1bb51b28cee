public import Foundation
import Glibc
public import LocalServices

/// One of the package's executables, as the build left it beside the test bundle, run the way an operator runs it.
public struct BuiltProgram: Sendable {
    public static let herald = BuiltProgram(named: "herald")
    public static let mailNotifier = BuiltProgram(named: "mail-notifier")

    public let url: URL

    init(named name: String) {
        url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// This process's environment without Herald's own settings, so a developer's `DATABASE_URL` or `APNS_*`
    /// never reaches a test's program, then `environment` on top.
    public static func environment(_ environment: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("APNS_") && !$0.key.hasPrefix("HERALD_") && $0.key != "DATABASE_URL"
        }.merging(environment) { $1 }
    }

    /// Runs the program to completion with ``environment(_:)`` plus `environment`.
    public func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProgramOutcome {
        try await ProcessRunner.outcome(of: url, arguments, environment: Self.environment(environment))
    }

    /// Starts the program with ``environment(_:)`` plus `environment`; its output goes to a file.
    public func start(
        _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil
    ) throws -> RunningProgram {
        try RunningProgram(
            url, arguments, environment: Self.environment(environment), directory: directory)
    }
}

/// A started program. Its output goes to a file rather than a pipe, which could fill while nobody reads it.
public final class RunningProgram: Sendable {
    public let process: Process
    public let outputURL: URL
    /// The exit status, once the program has exited.
    public let exited: Task<Int32, Never>

    init(_ executable: URL, _ arguments: [String], environment: [String: String], directory: URL?) throws {
        outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(executable.lastPathComponent)-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { ended in
            try? output.close()
            continuation.yield(ended.terminationStatus)
            continuation.finish()
        }
        try process.run()
        self.process = process
        exited = Task {
            for await status in stream { return status }
            return -1
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: outputURL)
    }

    /// Everything the program printed so far.
    public var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// Waits until the output holds a match of `pattern` and returns the match.
    /// - Throws: ``ProgramDidNotAnswer`` when the program exits or `timeout` passes first.
    @discardableResult
    public func waitFor(
        _ pattern: String, timeout: Duration = TestTimeouts.programStart
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let text = output
            if let range = text.range(of: pattern, options: .regularExpression) { return String(text[range]) }
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw ProgramDidNotAnswer(expected: pattern, output: text)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The port of `herald serve`'s (or `herald dev`'s) "serving on 127.0.0.1:PORT" line, once it is printed.
    public func servingPort() async throws -> Int {
        let line = try await waitFor(#"serving on 127\.0\.0\.1:\d+"#)
        return Int(line.split(separator: ":").last!)!
    }

    /// Sends `signal` and waits for the exit status.
    public func stop(with signal: Int32 = SIGTERM) async -> Int32 {
        kill(process.processIdentifier, signal)
        return await exited.value
    }
}

/// A started program exited, or kept silent, before printing what a test waited for.
public struct ProgramDidNotAnswer: Error, CustomStringConvertible {
    public let expected: String
    public let output: String

    public var description: String { "the program did not print \(expected); its output:\n\(output)" }
}
