public import Foundation

/// What `apns-mock` listens on, whom it trusts, and how it misbehaves on purpose.
public struct APNsMockConfiguration: Sendable {
    /// Address to bind; default 127.0.0.1.
    public var host: String
    /// Port to bind; 0 picks a free one (read ``APNsMockServer/port`` after starting).
    public var port: Int
    /// The team id (`iss`) tokens must carry.
    public var teamID: String
    /// Trusted signing keys: key id (`kid`) → public key PEM (a private key PEM is accepted too).
    public var keys: [String: String]
    /// Keys of further teams: team id (`iss`) → key id → PEM. A token verifies only with its own team's key.
    public var otherTeams: [String: [String: String]] = [:]
    /// Bundle ids pushes may target; empty accepts any.
    public var bundleIDs: Set<String>
    /// Which service issued a token, by a prefix of its hex: `device` (alert and background pushes), or a push type
    /// (`voip`, `widgets`, `liveactivity`, …). A push of another service to such a token is refused with
    /// `400 DeviceTokenNotForTopic`, as Apple does; a token no prefix names takes any push type.
    public var tokenKinds: [String: String] = [:]
    /// ALPN protocols offered; `["http/1.1"]` makes a server that does not speak h2, for tests.
    public var applicationProtocols: [String]
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` until the first valid request on a connection (Apple: 1).
    public var initialMaxConcurrentStreams: Int
    /// The limit after the first valid request (Apple: typically 1000).
    public var raisedMaxConcurrentStreams: Int
    /// Names the server certificate is valid for.
    public var serverNames: [String]
    /// Whether every request is kept for ``APNsMockServer/recordedRequests`` (turn off for benchmarks).
    public var recordsRequests: Bool
    /// Whether a newer token for a key within 20 minutes of the previous one is refused with
    /// `429 TooManyProviderTokenUpdates`, as Apple does. Turn off to restart a client often in development.
    public var limitsTokenUpdates: Bool
    /// The mock's clock for token ages; inject one in tests.
    public var now: @Sendable () -> Date
    /// Called with each answered request once its response is written, whether or not requests are recorded:
    /// lets `herald dev` show pushes as they arrive without keeping them all in memory.
    public var onRequest: (@Sendable (MockRecordedRequest) -> Void)?

    public init(
        host: String = "127.0.0.1", port: Int = 0, teamID: String, keys: [String: String],
        bundleIDs: Set<String> = [], applicationProtocols: [String] = ["h2"], initialMaxConcurrentStreams: Int = 1,
        raisedMaxConcurrentStreams: Int = 1000, serverNames: [String] = ["localhost", "127.0.0.1"],
        recordsRequests: Bool = true, limitsTokenUpdates: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() },
        onRequest: (@Sendable (MockRecordedRequest) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.teamID = teamID
        self.keys = keys
        self.bundleIDs = bundleIDs
        self.applicationProtocols = applicationProtocols
        self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        self.raisedMaxConcurrentStreams = raisedMaxConcurrentStreams
        self.serverNames = serverNames
        self.recordsRequests = recordsRequests
        self.limitsTokenUpdates = limitsTokenUpdates
        self.now = now
        self.onRequest = onRequest
    }
}
