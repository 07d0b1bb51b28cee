import HeraldCore
import Hummingbird

/// Seed §5.1: operators read the delivery log, filtered and paged newest first.
struct LogRoutes {
    let logs: DeliveryLogStore

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/logs", method: .get) { request, context in
            _ = try context.requireAPIKey(.read)
            var query = try LogQuery.parse(request.uri.queryParameters)
            query.filter.appID = try context.appScope.narrow(query.filter.appID.flatMap(ExternalID.init))?.rawValue
            let entries = try await logs.list(query.filter, limit: query.limit + 1, before: query.cursor)
            return PageResponse(
                entries, limit: query.limit, item: DeliveryLogItem.init, cursor: { ($0.createdAt, $0.id) })
        }
    }
}
