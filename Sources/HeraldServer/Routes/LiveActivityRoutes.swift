import Foundation
import HeraldCore
import Hummingbird

/// Live Activities: the app reports its push-to-start and update tokens (user token, or an admin key acting for
/// the user), and the backend starts, updates and ends activities (send key). Sends go through the outbox like
/// every other push; no route returns a token.
struct LiveActivityRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    private var outbox: OutboxAcceptance { OutboxAcceptance(services: services) }

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/devices/{deviceId}/push-to-start-tokens", method: .post) { request, context in
            let user = try context.requireUser()
            let device = try context.uuid("deviceId")
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["attributesType", "token"])
            let type = try LiveActivityRequest.attributesType(body)
            let token = try body.deviceToken("token")
            guard
                let created = try await services.liveActivities.registerPushToStart(
                    token, attributesType: type, device: device, of: user, in: context.appScope)
            else { throw APIError.notFound("you have no active device with this id", field: "deviceId") }
            return EditedResponse(
                status: created ? .created : .ok,
                response: PushToStartTokenResponse(
                    deviceId: device.uuidString.lowercased(), attributesType: type.rawValue))
        }
        router.on("/api/v1/activities/{activityId}", method: .put) { request, context in
            let user = try context.requireUser()
            let activity = try context.externalID("activityId")
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["deviceId", "attributesType", "token"])
            guard let device = UUID(uuidString: try body.requiredString("deviceId")) else {
                throw APIError.validation("must be a UUID", field: "deviceId")
            }
            let type = try LiveActivityRequest.attributesType(body)
            let token = try body.deviceToken("token")
            let report = try await services.liveActivities.reportActivity(
                activity, token: token, attributesType: type, device: device, of: user, in: context.appScope)
            switch report {
            case .noDevice: throw APIError.notFound("you have no active device with this id", field: "deviceId")
            case .ownedByAnother: throw APIError.activityOwnedByAnother
            case .started, .updated: break
            }
            return EditedResponse(
                status: report == .started ? .created : .ok,
                response: ActivityResponse(
                    activityId: activity.rawValue, deviceId: device.uuidString.lowercased(),
                    attributesType: type.rawValue))
        }
        router.on("/api/v1/activities/{activityId}", method: .delete) { _, context in
            let user = try context.requireUser()
            let activity = try context.externalID("activityId")
            guard try await services.liveActivities.endActivity(activity, of: user, in: context.appScope) else {
                throw APIError.notFound("you have no activity with this id", field: "activityId")
            }
            return Response(status: .noContent)
        }
        router.on("/api/v1/activities", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            let body = try JSONBody.object(bytes)
            let now = Date()
            var start = try LiveActivityRequest.start(body, now: now)
            if let app = try context.appScope.narrow(start.app) {
                guard try await services.apps.app(app) != nil else {
                    throw APIError.notFound("no app has this id", field: "appId")
                }
                start.app = app
            }
            return try await outbox.accept(
                NotificationDraft(start: start, at: now), request: request, body: bytes, key: key)
        }
        router.on("/api/v1/activities/{activityId}/events", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let activity = try context.externalID("activityId")
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            let now = Date()
            let update = try LiveActivityRequest.update(try JSONBody.object(bytes), now: now)
            let (found, app) = try await services.liveActivities.app(of: activity, in: context.appScope)
            guard found else { throw APIError.notFound("no running activity has this id", field: "activityId") }
            return try await outbox.accept(
                NotificationDraft(update: update, of: activity, app: context.appScope.app ?? app, at: now),
                request: request,
                body: bytes, key: key)
        }
    }
}
