import Foundation
import HeraldClient
import OpenAPIRuntime

extension HeraldConnection {
    /// Lists the interactions recorded after `query.since`, oldest first. Herald lists an interaction only once
    /// its recording has committed and never skips one, so a reader that keeps ``InteractionPage/nextCursor``
    /// reads each exactly once, in order.
    /// - Throws: ``HeraldError``: `rejected` for an error status (400 for a malformed cursor, 401 for a missing
    ///   or unknown key), `invalidResponse` for a success whose body is not a page of interactions.
    public func interactions(_ query: InteractionQuery) async throws(HeraldError) -> InteractionPage {
        let client = client
        let input = query.generated
        let output = try await perform { try await client.listInteractions(query: input) }
        switch output {
        case .ok(let ok):
            guard case .json(let page) = ok.body else {
                throw .invalidResponse(status: 200, reason: "expected a page of interactions")
            }
            return InteractionPage(
                items: page.items.map(Interaction.init), nextCursor: InteractionCursor(rawValue: page.nextCursor),
                hasMore: page.hasMore)
        case .undocumented(let status, _):
            throw .invalidResponse(status: status, reason: "an answer the API does not describe")
        default:
            // RejectionMiddleware turns every error status into HeraldError before the answer is decoded.
            throw .invalidResponse(status: 0, reason: "unexpected answer \(output)")
        }
    }
}

extension InteractionQuery {
    /// The query of the generated operation; a filter left `nil` is left out of the URL.
    var generated: Operations.ListInteractions.Input.Query {
        .init(
            since: since?.rawValue, notificationId: notificationId?.rawValue, userId: userId, action: action,
            _type: type, limit: limit)
    }
}

extension Interaction {
    /// An item of the listing, with typed ids and its notification's data as JSON values.
    init(_ item: Components.Schemas.Interaction) {
        self.init(
            id: InteractionID(rawValue: item.id), notificationId: HeraldNotificationID(rawValue: item.notificationId),
            deviceId: item.deviceId, userId: item.userId, appId: item.appId, action: item.action, text: item.text,
            type: item._type, tags: item.tags, data: item.data.value.mapValues(JSONValue.init(openAPIValue:)),
            collapseId: item.collapseId, createdAt: item.createdAt)
    }
}
