import Foundation
import HTTPTypes
import HeraldTesting
import Postgres
import Testing

/// When every database session is busy, a request waits a bounded time and is answered 503 with `Retry-After`
/// instead of hanging or failing with 500, and service resumes by itself once sessions are free.
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
            #expect(waited < .seconds(10), "the wait is bounded by the pool's acquire timeout")
            held.cancel()
            _ = try? await held.value
            #expect(try await api.call(.get, "/readyz").status == .ok)
            #expect(try await api.call(.get, "/api/v1/logs", headers: harness.admin()).status == .ok)
        }
    }
}
