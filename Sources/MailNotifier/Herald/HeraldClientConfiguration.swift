public import Foundation

/// Where Herald is and how to talk to it.
public struct HeraldClientConfiguration: Sendable {
    /// Herald's base URL, e.g. `http://127.0.0.1:8080`; the route is appended to it.
    public var baseURL: URL
    public var apiKey: APIKey
    /// How long one request may take before it fails with ``HeraldError/timeout(after:)``.
    public var timeout: Duration

    public init(baseURL: URL, apiKey: APIKey, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.timeout = timeout
    }
}

/// A Herald API key. Its description is redacted so it cannot leak into logs.
public struct APIKey: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let secret: String

    public init(_ secret: String) {
        self.secret = secret
    }

    public var description: String { "****" }
    public var debugDescription: String { "APIKey(****)" }
}
