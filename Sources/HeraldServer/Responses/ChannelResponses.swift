import APNsCore
import Foundation
import HeraldCore
import Hummingbird

struct ChannelResponse: ResponseEncodable {
    var id: String
    var apnsChannelId: String
    var appId: String
    var environment: String
    var messageStoragePolicy: Int
    var createdAt: Date

    init(_ channel: BroadcastChannel) {
        id = channel.id.uuidString.lowercased()
        apnsChannelId = channel.apnsChannelID.rawValue
        appId = channel.app.rawValue
        environment = channel.environment.rawValue
        messageStoragePolicy = channel.storagePolicy.rawValue
        createdAt = channel.createdAt
    }
}

struct ChannelListResponse: ResponseEncodable {
    var channels: [ChannelResponse]
}

struct BroadcastResponse: ResponseEncodable {
    var id: String
    var event: String
    var status: String
    var httpStatus: Int?
    var reason: String?
    var apnsUniqueId: String?
    var latencyMs: Double?
    var createdAt: Date

    init(_ record: ChannelBroadcastRecord) {
        id = record.id.uuidString.lowercased()
        event = record.event.rawValue
        status = record.status
        httpStatus = record.httpStatus
        reason = record.reason
        apnsUniqueId = record.uniqueID
        latencyMs = record.latencyMs?.answerTenths
        createdAt = record.createdAt
    }
}

struct BroadcastListResponse: ResponseEncodable {
    var broadcasts: [BroadcastResponse]
}
