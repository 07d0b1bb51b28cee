import Foundation
import HeraldCore
import Hummingbird

/// An app as the API shows it.
struct AppResponse: ResponseEncodable {
    var id: String
    var name: String
    var bundleId: String
    var teamId: String
    var defaultEnvironment: String
    var isDefault: Bool
    var deliveryWeight: Int
    var createdAt: Date
    var updatedAt: Date

    init(_ app: App) {
        id = app.externalID.rawValue
        name = app.name
        bundleId = app.bundleID
        teamId = app.teamID
        defaultEnvironment = app.defaultEnvironment.rawValue
        isDefault = app.isDefault
        deliveryWeight = app.deliveryWeight
        createdAt = app.createdAt
        updatedAt = app.updatedAt
    }
}

struct AppListResponse: ResponseEncodable {
    var apps: [AppResponse]
}

/// A signing key as the API shows it: never its material, nor where the material is on the host.
struct SigningKeyResponse: ResponseEncodable {
    var teamId: String
    var keyId: String
    var environments: String
    var topics: [String]
    var storage: String
    var state: String
    var createdAt: Date
    var retiredAt: Date?

    init(_ key: SigningKey) {
        teamId = key.teamID
        keyId = key.keyID
        environments = key.environments.rawValue
        topics = key.topics
        storage = key.storage.rawValue
        state = key.state.rawValue
        createdAt = key.createdAt
        retiredAt = key.retiredAt
    }
}

struct SigningKeyListResponse: ResponseEncodable {
    var keys: [SigningKeyResponse]
}
