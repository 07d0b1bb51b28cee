import Foundation
import FoundationNetworking
import HeraldTesting
import Testing

/// The README's short tour, run as a newcomer runs it: `herald dev` on a fresh data folder, `H`, `KEY` and
/// `USER_TOKEN` set to what it printed, and the tour's block in bash, stopping at the first command that fails
/// (every curl in it has `--fail-with-body`). Then what the tour says happened must have happened: the feedback's
/// push reached apns-mock and the log, the project override skipped demo-user with its reason, and the last step
/// removed the override again. So a renamed route, field or demo id breaks this test rather than the README.
@Suite(.sharesMachine, .timeLimit(.minutes(5))) struct ReadmeTourTests {
    /// How the comment line right before the tour's block in the README starts.
    static let marker = "<!-- ReadmeTourTests"

    /// What `herald dev` printed for the reader to copy.
    struct Printed {
        let url: String
        let apiKey: String
        let userToken: String

        init(_ dev: DevCommandTests.RunningDev) throws {
            url = try #require(dev.printed("URL"), "\(dev.output)")
            apiKey = try #require(dev.printed("API key"), "\(dev.output)")
            userToken = try #require(dev.printed("User token"), "\(dev.output)")
        }
    }

    @Test func theShortTourWorksAgainstHeraldDev() async throws {
        let tour = try ShellTour(document: "README.md", marker: Self.marker)
        #expect(tour.steps.count >= 5, "\(tour.steps)")
        let curls = tour.steps.flatMap { $0.components(separatedBy: "curl ").dropFirst() }
        #expect(!curls.isEmpty && curls.allSatisfy { $0.hasPrefix("-sS --fail-with-body") }, "\(tour.steps)")

        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-tour-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let dev = try DevCommandTests.RunningDev(dataDirectory: dataDirectory)
        defer { if dev.program.process.isRunning { dev.program.process.terminate() } }
        try await dev.waitFor("Press Ctrl-C to stop.")
        defer { DevCommandTests.removeFallbackFolder(named: dev.output) }
        let printed = try Printed(dev)

        let run = try await tour.run(variables: [
            "H": printed.url, "KEY": printed.apiKey, "USER_TOKEN": printed.userToken,
        ])
        let failedStep = tour.steps[min(run.completed, tour.steps.count - 1)]
        #expect(
            run.status == 0 && run.completed == tour.steps.count,
            "step \(run.completed + 1) failed:\n\(failedStep)\nwhich printed:\n\(run.unfinished)\nherald dev:\n\(dev.output)"
        )
        for (step, output) in zip(tour.steps, run.outputs) where step.contains("curl ") {
            let answers = Self.jsonObjects(in: output)
            #expect(!answers.isEmpty, "a step calling Herald shows its answer:\n\(step)\nprinted:\n\(output)")
        }
        let answers = run.outputs.flatMap(Self.jsonObjects)
        #expect(answers.contains { $0["environment"] as? String == "sandbox" }, "the device was registered")

        // The first event's push reached apns-mock and demo-user's log.
        let pushLines = try await Self.waitForPushLines(count: 1, in: dev)
        #expect(pushLines.count == 1, "\(dev.output)")
        #expect(pushLines.allSatisfy { $0.contains(#"title "New Feedback""#) && $0.hasSuffix("accepted") })
        let sent = try await Self.poll(
            {
                let log = try await Self.get("\(printed.url)/api/v1/logs?userId=demo-user", bearer: printed.apiKey)
                let items = log["items"] as? [[String: Any]] ?? []
                return items.filter { $0["status"] as? String == "sent" && $0["httpStatus"] as? Int == 200 }
            }, until: { !$0.isEmpty })
        #expect(sent.count == 1, "one push sent to demo-user's one device")

        // The second event skipped demo-user for the project override, and reached nobody.
        let skipped = try #require(
            answers.first { $0["notificationId"] != nil && $0["suppressed"] != nil }, "the tour read the deliveries")
        let notification = try #require(skipped["notificationId"] as? String)
        let deliveries = try await Self.poll(
            {
                try await Self.get(
                    "\(printed.url)/api/v1/notifications/\(notification)/deliveries", bearer: printed.apiKey)
            },
            until: { !(($0["suppressed"] as? [Any])?.isEmpty ?? true) })
        let suppressed = deliveries["suppressed"] as? [[String: Any]] ?? []
        #expect(
            suppressed.contains { $0["userId"] as? String == "demo-user" && $0["reason"] as? String == "override_off" },
            "\(deliveries)")
        #expect((deliveries["deliveries"] as? [Any])?.isEmpty == true, "\(deliveries)")
        #expect(dev.output.split(separator: "\n").filter { $0.contains("apns-mock received a push") }.count == 1)

        // The last step removed the override: demo-user hears of new feedback again.
        let preferences = try await Self.get(
            "\(printed.url)/api/v1/projects/demo-project/notification-preferences", bearer: printed.userToken)
        #expect((preferences["push"] as? [String: Any])?["newFeedback"] is NSNull, "\(preferences)")
        let effective = (preferences["effectivePreferences"] as? [String: Any])?["push"] as? [String: Any]
        #expect(effective?["newFeedback"] as? Bool == true, "\(preferences)")

        #expect(await dev.interrupt() == 0, "\(dev.output)")
    }

    /// The lines of `output` that are JSON objects, decoded: curl prints each answer on a line of its own.
    static func jsonObjects(in output: String) -> [[String: Any]] {
        output.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// GETs `url` with `bearer` and decodes the JSON object it answers; any status but 200 is an error.
    static func get(_ url: String, bearer: String) async throws -> [String: Any] {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode
        try #require(status == 200, "GET \(url): \(status ?? 0) \(String(decoding: data, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Asks `read` again every 250 ms until `done` holds of its answer or 30 seconds pass, and returns the last
    /// answer: delivery runs beside the API, so its effects show a moment after the request that caused them.
    static func poll<Answer>(
        _ read: () async throws -> Answer, until done: (Answer) -> Bool
    ) async throws -> Answer {
        let deadline = ContinuousClock.now + .seconds(30)
        var answer = try await read()
        while !done(answer) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            answer = try await read()
        }
        return answer
    }

    /// The lines `herald dev` printed for pushes apns-mock received, once there are `count` of them or 30 seconds
    /// passed.
    static func waitForPushLines(count: Int, in dev: DevCommandTests.RunningDev) async throws -> [Substring] {
        try await poll(
            { dev.output.split(separator: "\n").filter { $0.contains("apns-mock received a push") } },
            until: { $0.count >= count })
    }
}
