import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import InMemoryTracing
import Postgres
import Synchronization
import Testing
import Tracing

/// A push's spans, from the request that caused it to the write that recorded it, in one trace.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct TracingTests {
    @Test func oneTraceFromAnEventToItsRecordedLogRow() async throws {
        let tracer = InMemoryTracer()
        let deliveryID: String = try await withTracer(tracer) {
            let harness = try await APIHarness.make()
            let engines = try await EngineHarness.start(databaseURL: harness.databaseURL)
            let accepted = Mutex<UUID?>(nil)
            try await harness.run { api in
                try await DeviceAPITests.setUp(api, users: ["owner", "alice"])
                _ = try await api.call(
                    .put, "/api/v1/projects/p", headers: api.harness.admin(), json: #"{"name":"P","ownerId":"owner"}"#)
                let device = try await api.call(
                    .post, "/api/v1/devices/register", headers: try api.harness.user("owner"),
                    json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
                #expect(device.status == .created)
                let event = try await api.call(
                    .post, "/api/v1/events", headers: api.harness.bearer(api.harness.keys[.send]!),
                    json:
                        #"{"type":"new_feedback","projectId":"p","actorId":"alice","feedback":{"id":"f-1","title":"Dark mode"}}"#
                )
                #expect(event.status == .accepted)
                let id = try #require(event.json?["id"]?.stringValue)
                _ = try await api.harness.waitForExpansion(id)
                accepted.withLock { $0 = UUID(uuidString: id) }
                let stored = try await api.harness.client.query(
                    """
                    SELECT n.trace_context IS NOT NULL, d.trace_context = n.trace_context
                    FROM notifications n JOIN deliveries d ON d.notification_id = n.id WHERE n.id = \(UUID(uuidString: id)!)
                    """
                ).decode((Bool, Bool).self)
                #expect(stored.map { [$0.0, $0.1] } == [[true, true]], "the rows carry the request's trace")
            }
            let notification = try #require(accepted.withLock { $0 })
            let logged = try await engines.run(engines.makeEngine(), timeout: .seconds(60)) {
                try await engines.client.query(
                    "SELECT count(*) FROM push_notification_logs WHERE notification_id = \(notification) AND status = 'sent'"
                ).scalar(Int.self) == 1
            }
            #expect(logged)
            let delivery = try await engines.client.query(
                "SELECT delivery_id::text FROM push_notification_logs WHERE notification_id = \(notification)"
            ).scalar(String.self)
            try await engines.stop()
            return delivery
        }

        let spans = tracer.finishedSpans
        let request = try #require(
            spans.first { $0.operationName == "/api/v1/events" }, "\(spans.map(\.operationName))")
        let trace = spans.filter { $0.traceID == request.traceID }
        func only(_ name: String) throws -> FinishedInMemorySpan {
            let named = trace.filter { $0.operationName == name }
            #expect(named.count == 1, "\(name): \(named.count) in the request's trace")
            return try #require(named.first)
        }
        let accept = try only(HeraldSpan.accept)
        let expand = try only(HeraldSpan.expand)
        let deliver = try only(HeraldSpan.deliver)
        let claim = try only(HeraldSpan.claim)
        let batch = try only(HeraldSpan.apnsBatch)
        let record = try only(HeraldSpan.record)
        #expect(request.parentSpanID == nil)
        #expect(accept.parentSpanID == request.spanID)
        #expect(expand.parentSpanID == accept.spanID)
        #expect(deliver.parentSpanID == accept.spanID)
        for stage in [claim, batch, record] { #expect(stage.parentSpanID == deliver.spanID, "\(stage.operationName)") }

        #expect(deliver.attributes["herald.delivery.id"]?.toSpanAttribute() == .string(deliveryID))
        #expect(deliver.attributes["herald.outcome"]?.toSpanAttribute() == .string("sent"))
        #expect(deliver.attributes["apns.status"]?.toSpanAttribute() == .int64(200))
        #expect(batch.attributes["apns.id"]?.toSpanAttribute() == .string(deliveryID))
        #expect(expand.attributes["herald.deliveries"]?.toSpanAttribute() == .int64(1))
        // The stages follow each other inside the push's span.
        let nanoseconds = { (instant: any TracerInstant) in instant.nanosecondsSinceEpoch }
        #expect(nanoseconds(deliver.startInstant) == nanoseconds(claim.startInstant))
        #expect(nanoseconds(claim.endInstant) <= nanoseconds(batch.startInstant))
        #expect(nanoseconds(batch.endInstant) <= nanoseconds(record.startInstant))
        #expect(nanoseconds(record.endInstant) == nanoseconds(deliver.endInstant))
        // Expansion starts once the accepted row is committed, which is inside the accept span; the span itself ends
        // only when the request's task resumes, which on a busy machine can come after the expansion loop, woken by
        // the commit's NOTIFY, has begun.
        #expect(nanoseconds(accept.startInstant) <= nanoseconds(expand.startInstant))
    }

    /// With no tracer (the default), nothing is stored for tracing.
    @Test func withTracingOffRowsCarryNoTrace() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["ada"])
            _ = try await api.call(
                .post, "/api/v1/devices/register", headers: try api.harness.user("ada"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            let sent = try await api.call(
                .post, "/api/v1/notifications", headers: api.harness.bearer(api.harness.keys[.send]!),
                json: #"{"userIds":["ada"],"alert":{"title":"Hi"}}"#)
            #expect(sent.status == .accepted)
            let id = try #require(sent.json?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
            _ = try await api.harness.waitForExpansion(id.uuidString)
            let traces = try await api.harness.client.query(
                """
                SELECT count(*) FILTER (WHERE n.trace_context IS NOT NULL OR d.trace_context IS NOT NULL), count(*)
                FROM notifications n JOIN deliveries d ON d.notification_id = n.id WHERE n.id = \(id)
                """
            ).decode((Int, Int).self)
            #expect(traces.first.map { [$0.0, $0.1] } == [0, 1])
        }
    }
}
