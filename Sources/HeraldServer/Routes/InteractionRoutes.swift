import HeraldCore
import Hummingbird

/// What people do with a push comes back: the app reports a tap, a dismissal or an action on a delivered push, and
/// backends read them in order.
struct InteractionRoutes {
    let interactions: InteractionStore
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/notifications/{notificationId}/interactions", method: .post) { request, context in
            let user = try context.requireUser()
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            let report = try InteractionReportRequest.parse(
                body, notification: try context.uuid("notificationId"), user: user, scope: context.appScope)
            switch try await interactions.record(report) {
            case .recorded(let interaction):
                return EditedResponse(status: .created, response: InteractionItem(interaction: interaction))
            case .repeated(let interaction):
                return EditedResponse(status: .ok, response: InteractionItem(interaction: interaction))
            case .notDelivered:
                throw APIError.notFound(
                    "no push of this notification was delivered to this device of yours", field: "notificationId")
            case .tooMany:
                throw APIError(
                    .conflict, .conflict,
                    "this device already reported \(InteractionStore.maximumPerDelivery) different actions for this "
                        + "notification", field: "action")
            }
        }
        router.on("/api/v1/interactions", method: .get) { request, context in
            _ = try context.requireAPIKey(.read)
            var query = try InteractionQuery.parse(request.uri.queryParameters)
            query.filter.appID = try context.appScope.narrow(query.filter.appID.flatMap(ExternalID.init))?.rawValue
            let fetched = try await interactions.list(query.filter, after: query.since, limit: query.limit + 1)
            return InteractionPage(fetched, limit: query.limit, after: query.since)
        }
    }
}
