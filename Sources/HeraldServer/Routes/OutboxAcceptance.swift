import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore

/// What every sending route does last: stores the draft in the outbox (once per `Idempotency-Key`), wakes the
/// expanders and answers `202 {"id"}`.
struct OutboxAcceptance {
    static let idempotencyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    let services: HeraldServices

    func accept(_ draft: NotificationDraft, request: Request, body: ByteBuffer, key: APIKey) async throws
        -> EditedResponse<AcceptedResponse>
    {
        var idempotency: IdempotencyKey?
        if let header = request.headers[Self.idempotencyHeader] {
            idempotency = try JSONObject.domain { () throws(DomainError) in
                try IdempotencyKey(
                    apiKeyID: key.id, key: header, method: request.method.rawValue, path: request.uri.path,
                    body: body.readableBytesView)
            }
        }
        let accepted = try await services.notifications.accept(draft, apiKeyID: key.id, idempotency: idempotency)
        if !accepted.replayed { services.expansion?.wake() }
        return EditedResponse(
            status: .accepted, headers: accepted.replayed ? [Self.replayedHeader: "true"] : [:],
            response: AcceptedResponse(id: accepted.id))
    }
}
