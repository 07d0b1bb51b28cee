import Foundation
import FoundationNetworking
import Glibc
import HeraldTesting
import LocalServices
import Testing

/// `herald dev` as a newcomer meets it: the printed curl commands work as printed, the event's push reaches
/// apns-mock and the log, Ctrl-C stops everything, and a second start on the same folder finds its state and
/// revokes the first run's API key.
@Suite(.sharesMachine, .timeLimit(.minutes(5))) struct DevCommandTests {
    /// A running `herald dev`.
    struct RunningDev {
        let program: RunningProgram

        init(dataDirectory: URL) throws {
            program = try BuiltProgram.herald.start([
                "dev", "--data-dir", dataDirectory.path, "--port", "0", "--migrations", Repository.migrations.path,
            ])
        }

        var output: String { program.output }

        /// Waits until the output holds `text`.
        func waitFor(_ text: String) async throws {
            do {
                try await program.waitFor(NSRegularExpression.escapedPattern(for: text))
            } catch {
                Issue.record("no \"\(text)\" in herald dev's output:\n\(output)")
                throw error
            }
        }

        /// Sends SIGINT, as Ctrl-C does, and returns the exit status.
        func interrupt() async -> Int32 { await program.stop(with: SIGINT) }

        /// The printed lines that are curl commands, in order.
        var curlCommands: [String] {
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                $0.hasPrefix("curl ")
            }
        }

        /// The printed value after `label` (`User token`, `API key`).
        func printed(_ label: String) -> String? {
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last {
                $0.hasPrefix(label + " ")
            }.map { String($0.dropFirst(label.count)).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Runs `command` with `/bin/sh -c`, exactly as a reader pastes it.
    static func shell(_ command: String) async throws -> ProgramOutcome {
        try await ProcessRunner.outcome(of: URL(fileURLWithPath: "/bin/sh"), ["-c", command])
    }

    @Test func printedCommandsWorkAndStateSurvivesARestart() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-dev-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }

        let first = try RunningDev(dataDirectory: dataDirectory)
        try await first.waitFor("Press Ctrl-C to stop.")
        defer { Self.removeFallbackFolder(named: first.output) }
        let commands = first.curlCommands
        try #require(commands.count == 3, "\(first.output)")
        let (register, event, log) = (commands[0], commands[1], commands[2])

        let registered = try await Self.shell(register)
        #expect(registered.status == 0, "\(registered.output)")
        #expect(registered.output.contains(#""environment":"sandbox""#), "\(registered.output)")
        let posted = try await Self.shell(event)
        #expect(posted.status == 0, "\(posted.output)")

        let deadline = ContinuousClock.now + .seconds(30)
        var logged = try await Self.shell(log)
        while !logged.output.contains(#""status":"sent""#) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            logged = try await Self.shell(log)
        }
        #expect(logged.status == 0, "\(logged.output)")
        #expect(logged.output.contains(#""status":"sent""#), "\(logged.output)\n\(first.output)")
        #expect(logged.output.contains(#""httpStatus":200"#), "\(logged.output)")

        let pushLines = first.output.split(separator: "\n").filter { $0.contains("apns-mock received a push") }
        #expect(pushLines.count == 1, "\(first.output)")
        #expect(pushLines.allSatisfy { $0.contains(#"title "New Feedback""#) && $0.hasSuffix("accepted") })
        #expect(pushLines.allSatisfy { $0.contains("topic dev.herald.demo") && $0.contains("type alert") })
        let deviceToken = try #require(register.firstMatch(of: /"token":"([0-9a-f]{64})"/)?.1)
        #expect(!pushLines.contains { $0.contains(deviceToken) }, "no device token in a push line")

        let userToken = try #require(first.printed("User token"))
        let firstAPIKey = try #require(first.printed("API key"))
        let started = ContinuousClock.now
        #expect(await first.interrupt() == 0, "\(first.output)")
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(first.output.contains("stopped"))

        let second = try RunningDev(dataDirectory: dataDirectory)
        try await second.waitFor("Press Ctrl-C to stop.")
        #expect(second.printed("User token") != nil)
        let keptLog = try await Self.shell(second.curlCommands[2])
        #expect(keptLog.output.contains(#""status":"sent""#), "the first run's delivery is kept: \(keptLog.output)")
        let base = try #require(second.curlCommands[2].firstMatch(of: /'(http:\/\/127\.0\.0\.1:\d+)/)?.1)
        var request = URLRequest(url: URL(string: "\(base)/api/v1/devices")!)
        request.setValue("Bearer \(userToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "the first run's user token still works")
        #expect(String(decoding: data, as: UTF8.self).contains(#""environment":"sandbox""#), "the device is kept")
        var oldKeyRequest = URLRequest(url: URL(string: "\(base)/api/v1/logs?userId=demo-user")!)
        oldKeyRequest.setValue("Bearer \(firstAPIKey)", forHTTPHeaderField: "Authorization")
        let (_, oldKeyResponse) = try await URLSession.shared.data(for: oldKeyRequest)
        #expect((oldKeyResponse as? HTTPURLResponse)?.statusCode == 401, "the first run's API key is revoked")
        #expect(second.printed("API key") != firstAPIKey)
        #expect(await second.interrupt() == 0, "\(second.output)")
    }

    /// As root, PostgreSQL may keep its data outside the data folder; the output names where.
    static func removeFallbackFolder(named output: String) {
        guard let match = output.firstMatch(of: /keeping its data in (\/var\/tmp\/herald-dev\/\S+)/) else { return }
        try? FileManager.default.removeItem(atPath: String(match.1))
    }
}
