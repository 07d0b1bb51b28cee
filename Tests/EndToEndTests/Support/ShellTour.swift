import Foundation
import HeraldTesting
import LocalServices

/// A shell session a document shows: the fenced `sh` block right after a marker line, split into steps at its
/// blank lines (a comment and the commands it explains), and run the way a reader pastes it, so a test can hold the
/// document to what Herald does.
struct ShellTour {
    /// The block's steps, in order, each the text of one paragraph of the block.
    let steps: [String]

    /// The document has no line starting with the marker, or no `sh` block after it.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameters:
    ///   - document: the Markdown file, as a path in the repository.
    ///   - marker: how the line before the block starts (an HTML comment, which the rendered page does not show).
    init(document: String, marker: String) throws {
        let text = try String(contentsOf: Repository.root.appendingPathComponent(document), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let markerLine = lines.firstIndex(where: { $0.hasPrefix(marker) }) else {
            throw Missing(description: "\(document) has no line starting with \(marker)")
        }
        let opening = markerLine + 1
        guard opening < lines.count, lines[opening] == "```sh",
            let closing = lines[(opening + 1)...].firstIndex(of: "```")
        else {
            throw Missing(description: "\(document): no ```sh block right after \(marker)")
        }
        let block = lines[(opening + 1)..<closing].joined(separator: "\n")
        steps = block.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .newlines) }.filter {
            !$0.isEmpty
        }
    }

    /// What one run printed.
    struct Run {
        /// bash's exit status: 0 only when every step succeeded.
        let status: Int32
        /// What each step printed (standard output and error), for the steps that ran to their end.
        let outputs: [String]
        /// What the step that failed printed before bash stopped; empty when none failed.
        let unfinished: String

        var completed: Int { outputs.count }
    }

    /// A line no step prints, written after each step so that the output can be told apart by step.
    static let stepEnd = "@@ shell tour: step done @@"

    /// Runs every step in one bash, so that variables set by one step reach the next, as in the reader's terminal.
    /// `set -euo pipefail` stops at the first command that fails, and `variables` stand for what the reader set
    /// before pasting the block.
    func run(variables: [String: String]) async throws -> Run {
        let script =
            "set -euo pipefail\n"
            + steps.map { "\($0)\nprintf '\\n%s\\n' '\(Self.stepEnd)'" }.joined(separator: "\n")
        let environment = ProcessInfo.processInfo.environment.merging(variables) { $1 }
        let outcome = try await ProcessRunner.outcome(
            of: URL(fileURLWithPath: "/bin/bash"), ["-c", script], environment: environment)
        var parts = outcome.output.components(separatedBy: "\n\(Self.stepEnd)\n")
        let unfinished = parts.removeLast()
        return Run(status: outcome.status, outputs: parts, unfinished: unfinished)
    }
}
