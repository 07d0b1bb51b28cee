import APNsCore
import Foundation
import HTTPTypes
import HeraldServer
import HeraldTesting
import Prometheus
import Testing

@testable import HeraldCore

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct MetricsAPITests {
    @Test func servesTheEngineMetricsWithoutCredentials() async throws {
        var harness = try await APIHarness.make()
        harness.settings.deliversHere = true
        DeliveryMetrics(factory: PrometheusMetricsFactory(registry: harness.settings.metrics)).setConnections(4)
        try await harness.run { api in
            let answer = try await api.call(.get, "/metrics")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let samples = Self.samples(answer.text)
            #expect(samples["herald_delivery_engine_running"] == 1)
            #expect(samples["herald_apns_connections"] == 4)
            #expect(samples[#"herald_deliveries_sent_total{lane="immediate"}"#] == 0)
            #expect(samples[#"herald_deliveries_sent_total{lane="bulk"}"#] == 0)
            #expect(samples[#"herald_apns_latency_seconds_bucket{lane="bulk",le="+Inf"}"#] == 0)
            #expect(answer.text.contains("# TYPE herald_apns_latency_seconds histogram\n"))
        }
    }

    /// With HERALD_METRICS_KEY set, a scraper needs it; API keys and user tokens are not it.
    @Test func aMetricsKeyGuardsTheMetrics() async throws {
        var harness = try await APIHarness.make()
        harness.settings.metricsKey = "scrape-\(UUID())"
        let key = try #require(harness.settings.metricsKey)
        let admin = harness.admin()
        try await harness.run { api in
            #expect(try await api.call(.get, "/metrics").status == .unauthorized)
            #expect(try await api.call(.get, "/metrics", headers: admin).status == .unauthorized)
            #expect(
                try await api.call(.get, "/metrics", headers: [.authorization: "Bearer \(key)x"]).status
                    == .unauthorized)
            let answer = try await api.call(.get, "/metrics", headers: [.authorization: "bearer \(key)"])
            #expect(answer.status == .ok)
            #expect(Self.samples(answer.text)["herald_delivery_engine_running"] == 0)
        }
    }

    @Test func aProcessThatDoesNotDeliverSaysSo() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let answer = try await api.call(.get, "/metrics")
            #expect(answer.status == .ok)
            #expect(Self.samples(answer.text)["herald_delivery_engine_running"] == 0)
            #expect(!answer.text.contains("herald_deliveries_sent_total"))
        }
    }

    /// The engine's outcomes, through swift-metrics into the Prometheus registry, come out under the names and
    /// labels dashboards read; reasons come from the peer, so they are escaped.
    @Test func rendersEveryFamilyAndEscapesPeerReasons() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[DeliveryMetrics.Name.latency] = DeliveryMetrics.latencyBuckets
        let metrics = DeliveryMetrics(factory: factory)
        let odd = DeliveryReason.apple(APNsReason(name: "Odd\"Reason\\\n"))
        let outcomes: [DeliveryOutcome] =
            Array(repeating: .sent(correctedEnvironment: nil), count: 7)
            + Array(repeating: .fail(reason: .apple(.deviceTokenNotForTopic)), count: 2) + [.fail(reason: odd)]
            + Array(repeating: .retry(at: Date(), reason: .apple(.tooManyRequests)), count: 3)
        let latencies: [Double?] = [0.007, 0.02, 12] + Array(repeating: nil, count: outcomes.count - 3)
        // The first sent push and a failure went in the immediate lane.
        let lanes: [DeliveryLane] =
            [.immediate] + Array(repeating: .bulk, count: 6) + [.immediate] + [.bulk, .bulk]
            + Array(repeating: .bulk, count: 3)
        metrics.recordBatch(
            zip(zip(lanes, outcomes), latencies).map { .init(lane: $0.0, outcome: $0.1, latency: $1) })
        metrics.setOutboxDepth(11)
        metrics.adjustInFlight(by: 5)
        metrics.setPaused(true)
        let samples = Self.samples(registry.emitToString())
        #expect(samples[#"herald_deliveries_sent_total{lane="immediate"}"#] == 1)
        #expect(samples[#"herald_deliveries_sent_total{lane="bulk"}"#] == 6)
        #expect(samples[#"herald_deliveries_failed_total{lane="immediate",reason="DeviceTokenNotForTopic"}"#] == 1)
        #expect(samples[#"herald_deliveries_failed_total{lane="bulk",reason="DeviceTokenNotForTopic"}"#] == 1)
        #expect(samples[#"herald_deliveries_failed_total{lane="bulk",reason="Odd\"Reason\\\n"}"#] == 1)
        #expect(samples[#"herald_delivery_retries_total{reason="TooManyRequests"}"#] == 3)
        #expect(samples[#"herald_apns_latency_seconds_bucket{lane="immediate",le="0.01"}"#] == 1)
        #expect(samples[#"herald_apns_latency_seconds_bucket{lane="bulk",le="0.025"}"#] == 1)
        #expect(samples[#"herald_apns_latency_seconds_bucket{lane="bulk",le="10.0"}"#] == 1)
        #expect(samples[#"herald_apns_latency_seconds_bucket{lane="bulk",le="+Inf"}"#] == 2)
        #expect(samples[#"herald_apns_latency_seconds_count{lane="bulk"}"#] == 2)
        #expect(samples["herald_outbox_depth"] == 11)
        #expect(samples["herald_deliveries_in_flight"] == 5)
        #expect(samples["herald_paused_keys"] == 1)
        #expect(samples["herald_key_pauses_total"] == 1)
    }

    /// The samples of an exposition by series (name and labels as written), with their values.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
