import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore

/// Events and direct sends are accepted into the outbox at once (`202 {"id"}`); expansion follows.
struct NotificationRoutes {
    static let idempotencyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/events", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            let event = try EventRequest.parse(try JSONBody.object(bytes))
            return try await accept(NotificationDraft(event: event), request: request, body: bytes, key: key)
        }
        router.on("/api/v1/notifications", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            let direct = try DirectNotificationRequest.parse(try JSONBody.object(bytes))
            return try await accept(NotificationDraft(direct: direct), request: request, body: bytes, key: key)
        }
        router.on("/api/v1/notifications/{notificationId}", method: .get) { _, context in
            _ = try context.requireAPIKey(.read)
            guard let status = try await services.notifications.status(try context.uuid("notificationId")) else {
                throw APIError.notFound("no notification has this id", field: "notificationId")
            }
            return NotificationStatusResponse(status)
        }
    }

    private func accept(_ draft: NotificationDraft, request: Request, body: ByteBuffer, key: APIKey) async throws
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
        if !accepted.replayed { await services.expansion?.wake() }
        return EditedResponse(
            status: .accepted, headers: accepted.replayed ? [Self.replayedHeader: "true"] : [:],
            response: AcceptedResponse(id: accepted.id))
    }
}
