import APNs
import APNsCore
import Foundation
import HeraldCore
import Logging
import Postgres

/// The fairness measurement: a fan-out of one app drains while another app sends a single time-sensitive alert
/// every 100 ms, and each single send's row-to-APNs latency is measured (insert to recorded answer).
struct FairnessRun {
    let client: PostgresClient
    let fanOut: Int
    let writer: DeliveryRowWriter

    /// What the single sends say: a time-sensitive alert, in the lane its push would get at the API.
    static let single = NotificationMessage(
        payload: Payload(
            aps: APS(
                alert: Alert(title: "Code", body: "Your sign-in code is 123456"), interruptionLevel: .timeSensitive)))

    /// The notification type of the single sends, which the latency query picks them by.
    static let singleType = "fairness_single"

    struct Latency {
        var p50: Double
        var p99: Double
        var count: Int
        var stages: SingleSendStages
    }

    /// Runs `engine` (not yet started) until the fan-out and every single send are sent.
    func measure(engine: DeliveryEngine, outcomes: OutcomeCounts) async throws -> Latency {
        let fanOutApp = try await app("bench-fan-out")
        let singleApp = try await app("bench-single")
        try await client.execute("UPDATE device_tokens SET app_id = \(fanOutApp) WHERE app_id IS NULL")
        let user = try await client.query(
            "INSERT INTO users (external_id, email, name) VALUES ('single', 'single@example.com', 'Single') RETURNING id"
        ).scalar(UUID.self)
        let device = try await client.query(
            """
            INSERT INTO device_tokens (user_id, token, platform, environment, app_id)
            VALUES (\(user), \(String(repeating: "cd", count: 32)), 'iOS', 'sandbox', \(singleApp)) RETURNING id
            """
        ).scalar(UUID.self)
        let content = try PostgresJSON(encoding: Self.single)
        let lane = DeliveryLane.default(for: Self.single).rawValue
        var written = 0
        while written < fanOut {
            let count = min(writer.devices, fanOut - written)
            try await writer.write(count, app: fanOutApp)
            written += count
        }
        try await client.execute("VACUUM ANALYZE deliveries")

        let sentBefore = outcomes.sent
        let started = try await client.query("SELECT clock_timestamp()").scalar(Date.self)
        let runner = Task { await engine.run() }
        var singles = 0
        var inserted: [Int: Double] = [:]
        var next = ContinuousClock.now
        while outcomes.sent - sentBefore < fanOut {
            let trace = try PostgresJSON(encoding: SingleSendStages.carrier(singles))
            inserted[singles] = try await client.query(
                """
                WITH n AS (
                    INSERT INTO notifications (kind, type, content, targets, state, expanded_at, lane)
                    VALUES ('direct', \(Self.singleType), \(content), '{}'::jsonb, 'expanded', now(), \(lane))
                    RETURNING id
                )
                INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, lane, app_id, trace_context)
                SELECT n.id, \(user), \(device), 'sandbox', \(lane), \(singleApp), \(trace) FROM n
                RETURNING extract(epoch FROM now())::float8
                """
            ).scalar(Double.self)
            _ = try await client.query("SELECT pg_notify(\(HeraldChannel.deliveries), '')")
            singles += 1
            next += .milliseconds(100)
            try await Task.sleep(until: next)
        }
        try await outcomes.waitUntilSent(sentBefore + fanOut + singles)
        engine.shutdownGracefully()
        await runner.value
        let (p50, p99, count) = try await DeliveryBench.rowToAPNsLatency(
            client: client, since: started, type: Self.singleType)
        return Latency(p50: p50, p99: p99, count: count, stages: SingleSendStages(inserted: inserted))
    }

    private func app(_ id: String) async throws -> UUID {
        try await client.query(
            """
            INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment)
            VALUES (\(id), \(id), \("com.example." + id), \(DeliveryBench.teamID), 'sandbox') RETURNING id
            """
        ).scalar(UUID.self)
    }
}
