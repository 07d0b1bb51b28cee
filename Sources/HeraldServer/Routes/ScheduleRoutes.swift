import Foundation
import HeraldCore
import Hummingbird

/// Seed 002 FR-3: a notification not yet sent can be canceled, and a scheduled one moved or reworded.
struct ScheduleRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
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
            await services.expansion?.wake()
            guard let status = try await services.notifications.status(id, in: context.appScope) else {
                throw APIError.notFound("no notification has this id", field: "notificationId")
            }
            return NotificationStatusResponse(status)
        }
    }
}
