import HeraldCore
import Hummingbird

/// Where a notification went, device by device, and whom it skipped.
struct NotificationDeliveryRoutes {
    let logs: DeliveryLogStore

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/notifications/{notificationId}/deliveries", method: .get) { _, context in
            _ = try context.requireAPIKey(.read)
            guard
                let report = try await logs.deliveries(
                    of: try context.uuid("notificationId"), in: context.appScope)
            else {
                throw APIError.notFound("no notification has this id", field: "notificationId")
            }
            return NotificationDeliveriesResponse(report)
        }
    }
}
