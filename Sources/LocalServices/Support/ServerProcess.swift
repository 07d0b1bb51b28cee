import Foundation
import Glibc
import Synchronization

/// A long-running child process (a database server) whose exit can be awaited.
///
/// The server is run in the foreground as our child rather than daemonized, so it cannot outlive a clean shutdown
/// and its exit is observed directly.
final class ServerProcess: Sendable {
    private let process: Process
    private let exitStatus = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    /// Starts `executable`, appending its output to `logFile`.
    init(_ executable: String, _ arguments: [String], logFile: URL) throws {
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logFile)
        try log.seekToEnd()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        self.process = process
        process.terminationHandler = { [weak self] finished in
            try? log.close()
            guard let self else { return }
            let waiters = self.exitStatus.withLock { state in
                state.status = finished.terminationStatus
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            waiters.forEach { $0.resume(returning: finished.terminationStatus) }
        }
        try process.run()
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// The exit status, once it has exited.
    var exitedStatus: Int32? { exitStatus.withLock { $0.status } }

    /// Waits for the process to exit and returns its status.
    func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exitStatus.withLock { state -> Int32? in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Blocks until the process has exited or `timeout` passed: only for `atexit` handlers.
    func waitForExitBlocking(timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        while exitedStatus == nil && process.isRunning && ContinuousClock.now < deadline {
            usleep(10_000)
        }
    }

    func signal(_ number: Int32) {
        guard exitedStatus == nil else { return }
        kill(process.processIdentifier, number)
    }
}
