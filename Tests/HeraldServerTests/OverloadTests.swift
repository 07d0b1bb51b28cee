import Foundation
import FoundationNetworking
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import HummingbirdTesting
import Postgres
import Testing

/// More requests than Herald can serve get a 503 with `Retry-After` within a bound, never a hang or a 500: beyond
/// the in-progress limit at once, and after the request's database wait budget otherwise; service resumes by itself.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct OverloadTests {
    @Test func anExhaustedPoolAnswers503WithRetryAfterAndRecovers() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            // The harness's pool holds 10 sessions; take them all.
            let held = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            try await harness.client.withConnection { _ in try await Task.sleep(for: .seconds(30)) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            let started = ContinuousClock.now
            let answer = try await api.call(.get, "/api/v1/logs", headers: harness.admin())
            let waited = ContinuousClock.now - started
            #expect(answer.status == .serviceUnavailable, "\(answer.text)")
            #expect(answer.error == "unavailable")
            #expect(answer.headers[.retryAfter] == "1")
            #expect(waited < .seconds(7), "the wait is bounded by the request's budget (5 s): \(waited)")
            held.cancel()
            _ = try? await held.value
            #expect(try await api.call(.get, "/readyz").status == .ok)
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok)
        }
    }

    @Test func excessRequestsAre503AtOnceAndWaitsAreBounded() async throws {
        var configured = try await APIHarness.make(databaseSessions: 1)
        configured.settings.maxConcurrentRequests = 1
        configured.settings.databaseWaitBudget = .milliseconds(800)
        let harness = configured
        let client = harness.client
        try await harness.run { api in
            // The only database session is busy for 2 s: every request must wait for it.
            let busy = Task { try await client.withConnection { _ in try await Task.sleep(for: .seconds(2)) } }
            try await Task.sleep(for: .milliseconds(100))
            // On a connection of its own: the test client sends one request at a time.
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(try #require(api.client.port))/api/v1/logs")!)
            request.setValue("Bearer \(harness.keys[.admin]!)", forHTTPHeaderField: "Authorization")
            let waiting = Task { [request] in
                let started = ContinuousClock.now
                let (_, response) = try await URLSession.shared.data(for: request)
                return (try #require(response as? HTTPURLResponse), ContinuousClock.now - started)
            }
            // The next request is the one over the limit only once this one is being served.
            while try await api.call(.get, "/metrics").text.contains("herald_http_requests_in_progress 0") {
                try await Task.sleep(for: .milliseconds(10))
            }

            // Refused at once, not queued: the answer is the limiter's own, counted as shed. (Its time is no
            // evidence: the test process's threads are shared with every suite running beside this one.)
            let shed = try await api.call(.get, "/api/v1/logs", headers: harness.admin())
            #expect(shed.status == .serviceUnavailable && shed.error == "unavailable")
            #expect(shed.headers[.retryAfter] == "1")
            #expect(shed.json?["message"]?.stringValue?.hasPrefix("Herald is serving as many requests") == true)
            #expect(try await api.call(.get, "/metrics").text.contains("herald_http_requests_shed_total 1\n"))
            let health = try await api.call(.get, "/healthz")
            #expect(health.status == .ok, "probes are not counted against the limit")

            let (waited, duration) = try await waiting.value
            #expect(waited.statusCode == 503 && waited.value(forHTTPHeaderField: "Retry-After") == "1")
            #expect(duration >= .milliseconds(800) && duration < .seconds(2), "answered at its budget: \(duration)")

            try await busy.value
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok)
        }
    }
}
