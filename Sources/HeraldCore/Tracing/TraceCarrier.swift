import Foundation
public import Tracing

/// A span's context as the propagation fields the tracer writes (W3C `traceparent` and `tracestate` with
/// OpenTelemetry). A notification and its deliveries keep it in their rows (`trace_context`), so the spans of a push
/// join the trace of the request that caused it, in whichever process expands and sends it. With tracing off the
/// tracer writes nothing and nothing is stored.
public struct TraceCarrier: Sendable, Hashable, Codable {
    public let fields: [String: String]

    public init(fields: [String: String]) { self.fields = fields }

    /// The fields of `context` (the current task's by default), or nil when the tracer writes none.
    public static func capture(_ context: InstrumentationContext? = .current) -> TraceCarrier? {
        guard let context else { return nil }
        var fields: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &fields, using: FieldsInjector())
        return fields.isEmpty ? nil : TraceCarrier(fields: fields)
    }

    /// The span context the fields carry, to start spans under.
    public var context: InstrumentationContext {
        var context = InstrumentationContext.topLevel
        InstrumentationSystem.instrument.extract(fields, into: &context, using: FieldsExtractor())
        return context
    }
}

private struct FieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout [String: String]) { fields[key] = value }
}

private struct FieldsExtractor: Extractor {
    func extract(key: String, from fields: [String: String]) -> String? { fields[key] }
}
