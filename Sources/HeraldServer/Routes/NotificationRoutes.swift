import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore

/// Events and direct sends are accepted into the outbox at once (`202 {"id"}`); expansion follows.
struct NotificationRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    private var outbox: OutboxAcceptance { OutboxAcceptance(services: services) }

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/events", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            let body = try JSONBody.object(bytes)
            var draft = NotificationDraft(event: try EventRequest.parse(body))
            draft.expiresAt = try EventRequest.expiration(body)
            draft.targets.app = try await app(in: body, scope: context.appScope)
            return try await outbox.accept(draft, request: request, body: bytes, key: key)
        }
        router.on("/api/v1/notifications", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            let body = try JSONBody.object(bytes)
            var draft = NotificationDraft(direct: try DirectNotificationRequest.parse(body))
            draft.targets.app = try await app(in: body, scope: context.appScope)
            return try await outbox.accept(draft, request: request, body: bytes, key: key)
        }
        router.on("/api/v1/notifications/{notificationId}", method: .get) { _, context in
            _ = try context.requireAPIKey(.read)
            let id = try context.uuid("notificationId")
            guard let status = try await services.notifications.status(id, in: context.appScope) else {
                throw APIError.notFound("no notification has this id", field: "notificationId")
            }
            return NotificationStatusResponse(status)
        }
    }

    /// The `appId` that limits a send to one app's devices, checked to exist; an app's key always sends for its app.
    private func app(in body: JSONObject, scope: AppScope) async throws -> ExternalID? {
        guard let app = try scope.narrow(try body.externalID("appId")) else { return nil }
        guard try await services.apps.app(app) != nil else {
            throw APIError.notFound("no app has this id", field: "appId")
        }
        return app
    }
}
