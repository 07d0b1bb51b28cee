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
            // One row more than asked tells whether another page follows.
            var entries = try await logs.list(query.filter, limit: query.limit + 1, before: query.cursor)
            var nextCursor: String?
            if entries.count > query.limit {
                entries.removeLast(entries.count - query.limit)
                nextCursor = entries.last.map { PageCursorText.make($0.createdAt, $0.id) }
            }
            return PageResponse(items: entries.map(DeliveryLogItem.init), nextCursor: nextCursor)
        }
    }
}
