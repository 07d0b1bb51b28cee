import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Testing

@testable import HeraldServer

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct MetricsAPITests {
    @Test func servesTheEngineMetricsWithoutCredentials() async throws {
        var harness = try await APIHarness.make()
        let metrics = DeliveryMetrics()
        metrics.setConnections(4)
        harness.settings.deliveryMetrics = metrics
        try await harness.run { api in
            let answer = try await api.call(.get, "/metrics")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let lines = Set(answer.text.split(separator: "\n").map(String.init))
            #expect(lines.contains("herald_delivery_engine_running 1"))
            #expect(lines.contains("herald_apns_connections 4"))
            #expect(lines.contains("herald_deliveries_sent_total 0"))
            #expect(lines.contains(#"herald_apns_latency_seconds_bucket{le="+Inf"} 0"#))
            #expect(lines.contains("# TYPE herald_apns_latency_seconds histogram"))
        }
    }

    @Test func aProcessThatDoesNotDeliverSaysSo() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(.get, "/metrics")
            #expect(answer.status == .ok)
            #expect(answer.text.contains("herald_delivery_engine_running 0\n"))
            #expect(!answer.text.contains("herald_deliveries_sent_total"))
        }
    }

    @Test func rendersEveryFamilyAndEscapesPeerReasons() {
        var snapshot = DeliveryMetrics.Snapshot()
        snapshot.sent = 7
        snapshot.failedByReason = ["DeviceTokenNotForTopic": 2, "Odd\"Reason\\\n": 1]
        snapshot.retriesByReason = ["TooManyRequests": 3]
        snapshot.latencyBucketCounts = [0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3]
        snapshot.latencySum = 12.5
        snapshot.latencyCount = 3
        snapshot.outboxDepth = 11
        snapshot.inFlight = 5
        snapshot.pausedKeys = 1
        let lines = Set(PrometheusText.render(snapshot).split(separator: "\n").map(String.init))
        #expect(lines.contains("herald_deliveries_sent_total 7"))
        #expect(lines.contains(#"herald_deliveries_failed_total{reason="DeviceTokenNotForTopic"} 2"#))
        #expect(lines.contains(#"herald_deliveries_failed_total{reason="Odd\"Reason\\\n"} 1"#))
        #expect(lines.contains(#"herald_delivery_retries_total{reason="TooManyRequests"} 3"#))
        #expect(lines.contains(#"herald_apns_latency_seconds_bucket{le="0.01"} 1"#))
        #expect(lines.contains(#"herald_apns_latency_seconds_bucket{le="+Inf"} 3"#))
        #expect(lines.contains("herald_apns_latency_seconds_sum 12.5"))
        #expect(lines.contains("herald_apns_latency_seconds_count 3"))
        #expect(lines.contains("herald_outbox_depth 11"))
        #expect(lines.contains("herald_deliveries_in_flight 5"))
        #expect(lines.contains("herald_paused_keys 1"))
    }
}
