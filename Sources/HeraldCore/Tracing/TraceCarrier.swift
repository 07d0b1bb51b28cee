import Foundation
public import Tracing

/// A span's context as the propagation fields the tracer writes (W3C `traceparent` and `tracestate` with
/// OpenTelemetry). A notification and its deliveries keep it in their rows (`trace_context`), so the spans of a push
/// join the trace of the request that caused it, in whichever process expands and sends it. With tracing off the
/// tracer writes nothing and nothing is stored.
public struct TraceCarrier: Sendable, Hashable, Codable {
    public let fields: [String: String]

    /// Fields kept at most, the longest name and the longest value kept (W3C asks tracers to pass on at least 512
    /// characters of `tracestate`).
    static let fieldLimit = 4
    static let nameLimit = 64
    static let valueLimit = 512

    /// Keeps what fits the bounds: the fields come partly from the caller's headers (`tracestate`), and each delivery
    /// of a fan-out stores a copy, so a caller's long header must not become a million long rows.
    public init(fields: [String: String]) {
        let fitting = fields.filter { $0.key.utf8.count <= Self.nameLimit && $0.value.utf8.count <= Self.valueLimit }
        // W3C's own fields first, then the others in a stable order.
        let ordered = fitting.sorted { (Self.rank($0.key), $0.key) < (Self.rank($1.key), $1.key) }
        self.fields = Dictionary(uniqueKeysWithValues: ordered.prefix(Self.fieldLimit).map { ($0.key, $0.value) })
    }

    private static func rank(_ key: String) -> Int {
        switch key {
        case "traceparent": 0
        case "tracestate": 1
        default: 2
        }
    }

    /// The fields of `context` (the current task's by default), or nil when the tracer writes none that fits.
    public static func capture(_ context: InstrumentationContext? = .current) -> TraceCarrier? {
        guard let context else { return nil }
        var fields: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &fields, using: FieldsInjector())
        let carrier = TraceCarrier(fields: fields)
        return carrier.fields.isEmpty ? nil : carrier
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
