import Foundation
import Synchronization

/// A `herald serve` child process on a port it picked itself; its log is read and dropped so it never blocks.
final class HeraldProcess: Sendable {
    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    static func start(databaseURL: String, poolSize: Int, environment: [String: String]) async throws -> HeraldProcess {
        let herald = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("herald")
        let process = Process()
        process.executableURL = herald
        process.arguments = [
            "serve", "--port", "0", "--database-url", databaseURL, "--database-pool-size", "\(poolSize)",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let seen = Mutex("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            seen.withLock { text in
                if text.count < 10_000 { text += String(decoding: data, as: UTF8.self) }
            }
        }
        try process.run()
        for _ in 0..<300 {
            let text = seen.withLock { $0 }
            if let range = text.range(of: #"serving on [0-9.]+:(\d+)"#, options: .regularExpression),
                let port = text[range].split(separator: ":").last.flatMap({ Int($0) })
            {
                return HeraldProcess(port: port, process: process)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw CocoaError(
            .executableLoad,
            userInfo: [NSLocalizedDescriptionKey: "herald serve did not start: \(seen.withLock { $0 })"])
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
