import Foundation
import HeraldTesting
import LocalServices

/// Runs the built `herald` with the arguments a deployment file gives it, without a database, to prove that the
/// command and its options exist: a usage error exits 64, while a well-formed command gets as far as looking for
/// its database.
enum HeraldInvocation {
    struct Outcome {
        let status: Int32
        let output: String

        /// Whether the arguments parsed and passed validation, so only the missing database stopped the command.
        var reachedDatabase: Bool { output.contains("no database") }
    }

    static func run(_ arguments: [String]) async throws -> Outcome {
        let outcome = try await ProcessRunner.outcome(
            of: BuiltProgram.herald.url, arguments, environment: ["PATH": "/usr/bin:/bin"])
        return Outcome(status: outcome.status, output: outcome.output)
    }
}
