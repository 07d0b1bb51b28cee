import Foundation
import HeraldCore

/// Reads `POST /channels/{channelId}/broadcasts` bodies: an update or end, as for one activity's tokens.
enum ChannelBroadcastRequest {
    static func parse(_ body: JSONObject, now: Date) throws(APIError) -> LiveActivityUpdate {
        let broadcast = try LiveActivityRequest.updateFields(body)
        try JSONObject.domain { () throws(DomainError) in try broadcast.validateAsBroadcast(at: now) }
        return broadcast
    }
}
