import HeraldCore

/// Renders the delivery engine's metrics in Prometheus' text exposition format (version 0.0.4).
enum PrometheusText {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition of `snapshot`, or only `herald_delivery_engine_running 0` when this process delivers nothing.
    static func render(_ snapshot: DeliveryMetrics.Snapshot?) -> String {
        var text = ""
        gauge(&text, "herald_delivery_engine_running", "Whether this process runs the delivery engine.")
        sample(&text, "herald_delivery_engine_running", snapshot == nil ? 0 : 1)
        guard let snapshot else { return text }

        counter(&text, "herald_deliveries_sent_total", "Pushes Apple accepted.", snapshot.sent)
        family(&text, "herald_deliveries_failed_total", "counter", "Deliveries that finally failed, by reason.")
        for (reason, count) in snapshot.failedByReason.sorted(by: { $0.key < $1.key }) {
            sample(&text, "herald_deliveries_failed_total", Double(count), labels: [("reason", reason)])
        }
        family(&text, "herald_delivery_retries_total", "counter", "Attempts that will be retried, by reason.")
        for (reason, count) in snapshot.retriesByReason.sorted(by: { $0.key < $1.key }) {
            sample(&text, "herald_delivery_retries_total", Double(count), labels: [("reason", reason)])
        }
        counter(
            &text, "herald_devices_deactivated_total", "Devices deactivated because Apple called their token dead.",
            snapshot.deactivatedDevices)
        counter(
            &text, "herald_deactivations_withheld_total", "Deactivations the burst guard held back.",
            snapshot.withheldDeactivations)
        counter(&text, "herald_deliveries_expired_total", "Deliveries that expired before sending.", snapshot.expired)
        counter(&text, "herald_deliveries_canceled_total", "Deliveries canceled before sending.", snapshot.canceled)
        counter(
            &text, "herald_key_pauses_total", "Times sending was paused after a credential refusal.", snapshot.keyPauses
        )

        family(&text, "herald_apns_latency_seconds", "histogram", "From writing a request to reading Apple's answer.")
        for (index, count) in snapshot.latencyBucketCounts.enumerated() {
            let bound =
                index < DeliveryMetrics.latencyBuckets.count ? "\(DeliveryMetrics.latencyBuckets[index])" : "+Inf"
            sample(&text, "herald_apns_latency_seconds_bucket", Double(count), labels: [("le", bound)])
        }
        sample(&text, "herald_apns_latency_seconds_sum", snapshot.latencySum)
        sample(&text, "herald_apns_latency_seconds_count", Double(snapshot.latencyCount))

        gauge(&text, "herald_outbox_depth", "Due pending deliveries at the last measurement.")
        sample(&text, "herald_outbox_depth", Double(snapshot.outboxDepth))
        gauge(&text, "herald_deliveries_in_flight", "Deliveries claimed and not yet recorded.")
        sample(&text, "herald_deliveries_in_flight", Double(snapshot.inFlight))
        gauge(&text, "herald_apns_connections", "APNs connections configured across environments.")
        sample(&text, "herald_apns_connections", Double(snapshot.connections))
        gauge(&text, "herald_paused_keys", "Signing keys paused after a credential refusal.")
        sample(&text, "herald_paused_keys", Double(snapshot.pausedKeys))
        return text
    }

    private static func family(_ text: inout String, _ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private static func gauge(_ text: inout String, _ name: String, _ help: String) {
        family(&text, name, "gauge", help)
    }

    private static func counter(_ text: inout String, _ name: String, _ help: String, _ value: Int) {
        family(&text, name, "counter", help)
        sample(&text, name, Double(value))
    }

    private static func sample(_ text: inout String, _ name: String, _ value: Double, labels: [(String, String)] = []) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + format(value) + "\n"
    }

    /// Reasons come from the peer, so quotes, backslashes and line breaks are escaped as the format asks.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
