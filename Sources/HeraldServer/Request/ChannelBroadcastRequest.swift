import APNsCore
import Foundation
import HeraldCore

/// Reads `POST /channels/{channelId}/broadcasts` bodies.
enum ChannelBroadcastRequest {
    static func parse(_ body: JSONObject, now: Date) throws(APIError) -> ChannelBroadcast {
        let parsed = try LiveActivityRequest.updateFields(body, activity: ExternalID("broadcast")!)
        var broadcast = ChannelBroadcast(event: parsed.event, contentState: parsed.contentState)
        broadcast.alert = parsed.alert
        broadcast.staleDate = parsed.staleDate
        broadcast.dismissalDate = parsed.dismissalDate
        broadcast.relevanceScore = parsed.relevanceScore
        broadcast.priority = parsed.priority
        broadcast.expiration = parsed.expiration
        try JSONObject.domain { () throws(DomainError) in try broadcast.validate(at: now) }
        return broadcast
    }
}
