import Foundation
import HeraldCore
import Hummingbird

/// A device as the API shows it: never its token.
struct DeviceResponse: ResponseEncodable {
    var id: String
    var platform: String
    var environment: String
    var topic: String?
    var appId: String?
    var appVersion: String?
    var osVersion: String?
    var isActive: Bool
    var deactivationReason: String?
    var createdAt: Date
    var registeredAt: Date
    var lastUsedAt: Date?
    /// The services the device has a token for; never the tokens.
    var pushTokenKinds: [String]

    init(_ device: Device) {
        id = device.id.uuidString.lowercased()
        platform = device.platform.rawValue
        environment = device.environment.rawValue
        topic = device.topic
        appId = device.appID?.rawValue
        appVersion = device.appVersion
        osVersion = device.osVersion
        isActive = device.isActive
        deactivationReason = device.deactivationReason?.rawValue
        createdAt = device.createdAt
        registeredAt = device.registeredAt
        lastUsedAt = device.lastUsedAt
        pushTokenKinds = device.pushTokenKinds.map(\.rawValue)
    }
}

struct DeviceListResponse: ResponseEncodable {
    var devices: [DeviceResponse]
}
