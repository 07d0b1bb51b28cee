public import Foundation

/// What an API key may do. `admin` may call every route, `send` may post events and notifications, `read` may
/// only read notifications, logs and stats.
public enum APIKeyScope: String, Sendable, CaseIterable, Codable {
    case admin
    case send
    case read
}

/// An API key as stored: never the key itself, only its visible prefix.
public struct APIKey: Sendable, Equatable {
    public var id: UUID
    public var name: String
    /// The key's first characters, to tell keys apart in listings.
    public var prefix: String
    public var scope: APIKeyScope
    /// The only app the key sees and sends for; `nil` for every app.
    public var appID: ExternalID?
    /// The key's own rate limit in requests per second (bursts of twice that); `nil` takes the server's.
    public var rateLimit: Int?
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?

    /// The apps the key sees and sends for.
    public var appScope: AppScope { appID.map(AppScope.app) ?? .everyApp }
}

/// A freshly created key: the only moment its secret exists outside the caller's hands.
public struct CreatedAPIKey: Sendable {
    public var key: APIKey
    /// The full key (`hk_…`), to show once. Never log it.
    public var secret: String
}
