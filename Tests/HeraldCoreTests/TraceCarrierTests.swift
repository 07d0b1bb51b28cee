import HeraldCore
import Testing

/// What a notification's row keeps of its trace: each delivery of a fan-out copies it, so it stays small whatever a
/// caller's headers hold.
struct TraceCarrierTests {
    @Test func keepsTheTraceparentAndAW3CSizedTracestate() {
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let tracestate = "vendor=" + String(repeating: "a", count: 505)
        let carrier = TraceCarrier(fields: ["traceparent": traceparent, "tracestate": tracestate])
        #expect(carrier.fields == ["traceparent": traceparent, "tracestate": tracestate])
    }

    @Test func dropsLongValuesAndFieldsBeyondTheLimit() {
        var fields = ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]
        fields["tracestate"] = "vendor=" + String(repeating: "a", count: 8_000)
        for index in 0..<10 { fields["baggage-\(index)"] = "x" }
        let carrier = TraceCarrier(fields: fields)
        #expect(carrier.fields["traceparent"] != nil)
        #expect(carrier.fields["tracestate"] == nil)
        #expect(carrier.fields.count == 4)
        #expect(carrier.fields.values.allSatisfy { $0.utf8.count <= 512 })
    }
}
