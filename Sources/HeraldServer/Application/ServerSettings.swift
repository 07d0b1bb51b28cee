public import Cryptography
public import HeraldCore
public import Prometheus

/// How `herald serve` runs: address, limits, user-token keys and registration defaults.
public struct ServerSettings: Sendable {
    /// Address to listen on (`HERALD_HOST`, default 127.0.0.1).
    public var host = "127.0.0.1"
    /// Port to listen on (`HERALD_PORT`, default 8080; 0 picks a free one).
    public var port = 8080
    /// Largest request body accepted, in bytes (`HERALD_MAX_BODY_BYTES`, default 64 KiB).
    public var maxBodySize = 64 * 1024
    /// API requests in progress at once; more are answered 503 at once (`HERALD_MAX_CONCURRENT_REQUESTS`, default 512).
    public var maxConcurrentRequests = 512
    /// How long one request may wait for database sessions in all before it is answered 503.
    public var databaseWaitBudget = Duration.seconds(5)
    /// Each API key's and each user's requests (`HERALD_RATE_LIMIT_PER_SECOND`, `HERALD_RATE_LIMIT_BURST`; default
    /// 50 a second with bursts of 100); a key created with its own limit keeps that.
    public var rateLimit = RateLimit.standard
    /// How 401s and 429s to one client address are slowed once it is refused often (`HERALD_REFUSALS_PER_SECOND`,
    /// `HERALD_REFUSAL_DELAY_MS`; default 10 a second with bursts of 20, then 1 s each).
    public var refusals = RefusalThrottle.standard
    /// The longest a statistics answer is shared with requests asking the same question (`HERALD_STATS_SHARE_SECONDS`,
    /// default 60); within it, a 8640th of the answer's window. Zero: each request counts for itself.
    public var longestStatsSharing = Duration.seconds(60)
    /// The active devices a user keeps per app (`HERALD_MAX_DEVICES_PER_USER`, default 50) and the Live Activity and
    /// push-to-start tokens a device keeps (`HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE`, default 20 each).
    public var registrationLimits = RegistrationLimits()
    /// Verifies user tokens (`HERALD_USER_JWT_SECRET`, `HERALD_USER_JWT_PUBLIC_KEY`).
    public var userTokens = UserTokenVerifier(hmacSecret: nil, publicKey: nil)
    /// The APNs environment of registrations that name none (`APNS_PRODUCTION`).
    public var defaultEnvironment = PushEnvironment.sandbox
    /// The OpenAPI document served at `/openapi.yaml`.
    public var openAPIDocument: String?
    /// The process's metrics, served at `/metrics`; the delivery engine records into the same registry.
    public var metrics = PrometheusCollectorRegistry()
    /// When set (`HERALD_METRICS_KEY`), `/metrics` answers only `Authorization: Bearer <this key>`.
    public var metricsKey: String?
    /// Whether this process runs the delivery engine (`herald_delivery_engine_running`).
    public var deliversHere = false
    /// Seals signing keys added over the API (`HERALD_MASTER_KEY_FILE`); without it they are added on the host.
    public var masterKey: AES256GCM?

    public init() {}
}
