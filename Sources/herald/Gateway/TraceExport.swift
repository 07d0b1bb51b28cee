import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Turns tracing on for this process when it is configured: swift-otel's tracer becomes the process's instrument,
/// exporting spans over OTLP/HTTP in batches, and every log line carries the trace and span ids (`trace_id`,
/// `span_id`) of the work it is about. Off, nothing is bootstrapped: spans go to the no-op tracer, rows store no trace,
/// and log lines are as before.
enum TraceExport {
    /// Starts tracing; call it once, before any logger is made, and run the service it returns first in the
    /// process's service group (stopped last, it exports the spans of the shutdown too).
    /// - Returns: The exporter's service, or nil when tracing is off.
    /// - Throws: ``CommandFailure`` for OpenTelemetry settings swift-otel refuses (a gRPC protocol, say).
    static func start(_ settings: TracingSettings?, logLevel: Logger.Level) throws -> (any Service)? {
        guard let settings else { return nil }
        var diagnostics = Logger(label: "herald.tracing")
        diagnostics.logLevel = logLevel
        var configuration = OTel.Configuration.default
        configuration.serviceName = "herald"
        configuration.diagnosticLogger = .custom(diagnostics)
        // Its own problems (a collector that refuses a batch), not a line per setting it read.
        configuration.diagnosticLogLevel = .warning
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        do {
            let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(tracer)
            LoggingSystem.bootstrap(
                { label, provider in StreamLogHandler.standardError(label: label, metadataProvider: provider) },
                metadataProvider: OTel.makeLoggingMetadataProvider())
            diagnostics.notice("exporting traces over OTLP/HTTP to \(settings.endpoint.absoluteString)")
            return service
        } catch {
            throw CommandFailure("tracing (OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_* settings): \(error)")
        }
    }
}
