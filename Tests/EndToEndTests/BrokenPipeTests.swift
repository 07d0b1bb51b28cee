import Foundation
import Glibc
import HeraldTesting
import Testing

/// `herald` ignores SIGPIPE: a write to a peer that has gone (an APNs or database socket, a webhook, a closed
/// stdout) fails that one write with EPIPE instead of ending the process.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct BrokenPipeTests {
    @Test func heraldSurvivesWritingToAReaderThatHasGone() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        // The reader is gone before herald writes its help text: every write to the pipe raises SIGPIPE.
        close(ends[0])
        let process = Process()
        process.executableURL = BuiltProgram.herald.url
        process.arguments = ["--help"]
        process.environment = BuiltProgram.environment([:])
        process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try await withCheckedThrowingContinuation { (ended: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in ended.resume() }
            do {
                try process.run()
            } catch {
                ended.resume(throwing: error)
            }
        }
        #expect(
            process.terminationReason == .exit,
            "herald ended by signal \(process.terminationStatus) (SIGPIPE is \(SIGPIPE)) writing to a closed pipe")
    }
}
