import Foundation

/// Tracing, for the commands that serve or deliver: on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, off otherwise. The
/// exporter's other settings are OpenTelemetry's standard variables (`OTEL_SERVICE_NAME`,
/// `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, …), which swift-otel reads when
/// ``TraceExport`` starts it.
struct TracingSettings: Sendable, Equatable {
    /// The collector's base URL; spans go to its `/v1/traces`.
    var endpoint: URL

    /// The settings, or nil when no endpoint is set.
    /// - Throws: ``CommandFailure`` for an endpoint that is not an http(s) URL with a host.
    static func resolve(environment: [String: String]) throws -> TracingSettings? {
        guard let text = environment["OTEL_EXPORTER_OTLP_ENDPOINT"], !text.isEmpty else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw CommandFailure(
                "OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL, such as http://collector:4318")
        }
        return TracingSettings(endpoint: url)
    }
}
