import APNsCore
import Foundation
import HeraldCore
import Hummingbird

/// One interaction in the API's field names; optional fields are written as null, never left out.
struct InteractionItem: ResponseEncodable {
    var interaction: Interaction

    private enum CodingKeys: String, CodingKey {
        case id, notificationId, deviceId, userId, appId, action, text, type, tags, data, collapseId, createdAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(interaction.id.uuidString.lowercased(), forKey: .id)
        try container.encode(interaction.notificationID.uuidString.lowercased(), forKey: .notificationId)
        try container.encode(interaction.deviceID.uuidString.lowercased(), forKey: .deviceId)
        try container.encode(interaction.userID, forKey: .userId)
        try container.encode(interaction.appID, forKey: .appId)
        try container.encode(interaction.action.rawValue, forKey: .action)
        try container.encode(interaction.text, forKey: .text)
        try container.encode(interaction.type, forKey: .type)
        try container.encode(interaction.tags, forKey: .tags)
        try container.encode(interaction.data, forKey: .data)
        try container.encode(interaction.collapseID, forKey: .collapseId)
        try container.encode(interaction.createdAt, forKey: .createdAt)
    }
}

/// A listing of interactions: `nextCursor` is always given, since a reader polls on from it; `hasMore` says whether
/// more follow at once.
struct InteractionPage: ResponseEncodable {
    var items: [InteractionItem]
    var nextCursor: String
    var hasMore: Bool

    /// A page of `fetched`, which holds up to one interaction more than `limit` (telling that more follow).
    init(_ fetched: [Interaction], limit: Int, after cursor: InteractionCursor) {
        let page = fetched.prefix(limit)
        items = page.map(InteractionItem.init)
        nextCursor = (page.last?.cursor ?? cursor).description
        hasMore = fetched.count > limit
    }
}
