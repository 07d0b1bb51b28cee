import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore

/// What waits to be sent and who sends it, for an operator (`GET /api/v1/outbox`). Requests for the same app share
/// one answer while it is counted and for a second after: a dashboard refreshing in many tabs costs one count.
struct OutboxRoutes {
    static let freshness: Duration = .seconds(1)

    let answers: SharedAnswers<String?, ByteBuffer, ContinuousClock>

    init(outbox: OutboxStore) {
        answers = SharedAnswers(
            clock: ContinuousClock(), freshness: { _ in Self.freshness },
            make: { app in
                let snapshot = try await outbox.snapshot(app: app)
                let encoder = HeraldRequestContext.makeResponseEncoder()
                return ByteBuffer(bytes: try encoder.encode(OutboxResponse(snapshot)))
            })
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/outbox", method: .get) { request, context in
            _ = try context.requireAPIKey(.read)
            let parameters = request.uri.queryParameters
            try parameters.allowOnly(["appId"])
            let app = try context.appScope.narrow(try parameters.externalID("appId"))
            let body = try await answers.answer(app?.rawValue)
            return Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .contentLength: "\(body.readableBytes)"],
                body: .init(byteBuffer: body))
        }
    }
}
