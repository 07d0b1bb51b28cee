import HeraldCore
import HeraldServer

/// `herald serve`'s HTTP server: flag, else environment variable, else ``ServerSettings``' default.
struct HTTPSettings: Sendable {
    /// Ports one may listen on; 0 picks a free one.
    static let ports = 0...65535
    /// The smallest request body limit accepted.
    static let smallestBodyLimit = 1024

    /// `HERALD_HOST`.
    var host: String
    /// `HERALD_PORT`.
    var port: Int
    /// `HERALD_MAX_BODY_BYTES`.
    var maxBodySize: Int
    /// `HERALD_MAX_CONCURRENT_REQUESTS`.
    var maxConcurrentRequests: Int
    /// `HERALD_RATE_LIMIT_PER_SECOND` and `HERALD_RATE_LIMIT_BURST`: each API key's and user's requests.
    var rateLimit: RateLimit
    /// `HERALD_REFUSALS_PER_SECOND` and `HERALD_REFUSAL_DELAY_MS`: how repeated 401s and 429s are slowed.
    var refusals: RefusalThrottle
    /// `HERALD_MAX_DEVICES_PER_USER` and `HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE`.
    var registrationLimits: RegistrationLimits
    /// `HERALD_STATS_SHARE_SECONDS`: the longest a statistics answer serves other requests.
    var longestStatsSharing: Duration
    /// `HERALD_USER_JWT_SECRET`: the HS256 key of user tokens.
    var userJWTSecret: [UInt8]?
    /// `HERALD_USER_JWT_PUBLIC_KEY`: a PEM file with the ES256 key of user tokens; read when the server starts.
    var userJWTPublicKeyPath: String?
    /// `HERALD_METRICS_KEY`: when set, the bearer credential `/metrics` asks for.
    var metricsKey: String?
    /// `HERALD_USER_JWT_AUDIENCE`: when set, the `aud` every user token must name.
    var userJWTAudience: String?
    /// `HERALD_USER_JWT_ISSUER`: when set, the `iss` every user token must carry.
    var userJWTIssuer: String?

    init(_ flags: ServerOptions, _ settings: SettingSource) throws {
        let defaults = ServerSettings()
        host = settings.string(flags.host, "HERALD_HOST") ?? defaults.host
        port = try settings.integer(flags.port, "HERALD_PORT") ?? defaults.port
        guard Self.ports.contains(port) else { throw CommandFailure("HERALD_PORT must be 0 to 65535") }
        maxBodySize = try settings.integer(flags.maxBodyBytes, "HERALD_MAX_BODY_BYTES") ?? defaults.maxBodySize
        guard maxBodySize >= Self.smallestBodyLimit else {
            throw CommandFailure("HERALD_MAX_BODY_BYTES must be at least \(Self.smallestBodyLimit)")
        }
        maxConcurrentRequests =
            try settings.positiveInteger(flags.maxConcurrentRequests, "HERALD_MAX_CONCURRENT_REQUESTS")
            ?? defaults.maxConcurrentRequests
        rateLimit = try Self.rateLimit(settings)
        refusals = try Self.refusals(settings)
        registrationLimits = try Self.registrationLimits(settings)
        let sharing = try settings.integer(nil, "HERALD_STATS_SHARE_SECONDS") ?? 60
        guard (0...3600).contains(sharing) else { throw CommandFailure("HERALD_STATS_SHARE_SECONDS must be 0 to 3600") }
        longestStatsSharing = .seconds(sharing)
        userJWTSecret = settings.string(nil, "HERALD_USER_JWT_SECRET").map { Array($0.utf8) }
        if let secret = userJWTSecret, secret.count < UserTokenVerifier.minimumSecretLength {
            throw CommandFailure(
                "HERALD_USER_JWT_SECRET must be at least \(UserTokenVerifier.minimumSecretLength) bytes, not "
                    + "\(secret.count): a short HS256 secret can be guessed offline from any token "
                    + "(make one with: openssl rand -hex 32)")
        }
        userJWTPublicKeyPath = settings.string(flags.userJWTPublicKey, "HERALD_USER_JWT_PUBLIC_KEY")
        metricsKey = settings.string(nil, "HERALD_METRICS_KEY")
        userJWTAudience = settings.string(nil, "HERALD_USER_JWT_AUDIENCE")
        userJWTIssuer = settings.string(nil, "HERALD_USER_JWT_ISSUER")
    }

    /// `HERALD_RATE_LIMIT_PER_SECOND` (default 50) and `HERALD_RATE_LIMIT_BURST` (default twice the rate, so a
    /// higher rate alone raises both); `herald dev` reads them too.
    static func rateLimit(_ settings: SettingSource) throws -> RateLimit {
        let defaults = ServerSettings().rateLimit
        let perSecond =
            try settings.positiveInteger(nil, "HERALD_RATE_LIMIT_PER_SECOND").map(Double.init) ?? defaults.perSecond
        let burst = try settings.positiveInteger(nil, "HERALD_RATE_LIMIT_BURST").map(Double.init) ?? perSecond * 2
        return RateLimit(perSecond: perSecond, burst: burst)
    }

    /// `HERALD_REFUSALS_PER_SECOND` (default 10 per client address, bursts of twice that) and
    /// `HERALD_REFUSAL_DELAY_MS` (default 1000; 0 answers every refusal at once); `herald dev` reads them too.
    static func refusals(_ settings: SettingSource) throws -> RefusalThrottle {
        let defaults = ServerSettings().refusals
        let perSecond =
            try settings.positiveInteger(nil, "HERALD_REFUSALS_PER_SECOND").map(Double.init)
            ?? defaults.allowance.perSecond
        let delay = try settings.integer(nil, "HERALD_REFUSAL_DELAY_MS").map { milliseconds in
            guard (0...60_000).contains(milliseconds) else {
                throw CommandFailure("HERALD_REFUSAL_DELAY_MS must be 0 to 60000")
            }
            return Duration.milliseconds(milliseconds)
        }
        return RefusalThrottle(
            allowance: RateLimit(perSecond: perSecond, burst: perSecond * 2), delay: delay ?? defaults.delay)
    }

    /// `HERALD_MAX_DEVICES_PER_USER` (default 50) and `HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE` (default 20); `herald
    /// dev` reads them too.
    static func registrationLimits(_ settings: SettingSource) throws -> RegistrationLimits {
        let defaults = ServerSettings().registrationLimits
        return RegistrationLimits(
            devicesPerUser: try settings.positiveInteger(nil, "HERALD_MAX_DEVICES_PER_USER") ?? defaults.devicesPerUser,
            activityTokensPerDevice: try settings.positiveInteger(nil, "HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE")
                ?? defaults.activityTokensPerDevice)
    }
}
