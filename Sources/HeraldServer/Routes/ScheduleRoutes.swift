import Foundation
import HeraldCore
import Hummingbird

/// Seed 002 FR-3: a notification not yet sent can be canceled, and a scheduled one moved or reworded; what is
/// scheduled can be listed, and canceled together by tag.
struct ScheduleRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/notifications", method: .get) { request, context in
            _ = try context.requireAPIKey(.read)
            let query = try ScheduledQuery.parse(request.uri.queryParameters)
            let waiting = try await services.notifications.scheduled(
                query.filter, limit: query.limit + 1, after: query.cursor, in: context.appScope)
            return PageResponse(
                waiting, limit: query.limit, item: NotificationStatusResponse.init, cursor: { ($0.sendAt, $0.id) })
        }
        router.on("/api/v1/notifications", method: .delete) { request, context in
            _ = try context.requireAPIKey(.send)
            let parameters = request.uri.queryParameters
            try parameters.allowOnly(["tag", "userId"])
            // Without a tag this would cancel everything: never by accident.
            guard let tag = try parameters.tag("tag") else { throw APIError.validation("is required", field: "tag") }
            let user = try parameters.externalID("userId")
            let canceled = try await services.notifications.cancelGroup(tag: tag, user: user, in: context.appScope)
            return GroupCancellationResponse(
                tag: tag.rawValue, userId: user?.rawValue, canceledNotifications: canceled.notifications,
                canceledDeliveries: canceled.deliveries)
        }
        router.on("/api/v1/notifications/{notificationId}", method: .delete) { _, context in
            _ = try context.requireAPIKey(.send)
            let id = try context.uuid("notificationId")
            guard let cancellation = try await services.notifications.cancel(id, in: context.appScope) else {
                throw APIError.notFound("no notification has this id", field: "notificationId")
            }
            return CancellationResponse(id: id.uuidString.lowercased(), cancellation)
        }
        router.on("/api/v1/notifications/{notificationId}", method: .patch) { request, context in
            _ = try context.requireAPIKey(.send)
            let id = try context.uuid("notificationId")
            let change = try ScheduleChangeRequest.parse(
                try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize)))
            let found: Bool
            do {
                found = try await services.notifications.change(id, change, in: context.appScope)
            } catch let error as ScheduleChangeError {
                throw error.apiError
            }
            guard found else { throw APIError.notFound("no notification has this id", field: "notificationId") }
            // A time moved earlier must not wait for the expander's previous wake-up.
            services.expansion?.wake()
            guard let status = try await services.notifications.status(id, in: context.appScope) else {
                throw APIError.notFound("no notification has this id", field: "notificationId")
            }
            return NotificationStatusResponse(status)
        }
    }
}
