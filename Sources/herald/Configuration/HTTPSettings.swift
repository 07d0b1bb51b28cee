/// `herald serve`'s HTTP server: flag, else environment variable, else default.
struct HTTPSettings: Sendable {
    /// `HERALD_HOST` (default 127.0.0.1).
    var host: String
    /// `HERALD_PORT` (default 8080; 0 picks a free one).
    var port: Int
    /// `HERALD_MAX_BODY_BYTES` (default 64 KiB).
    var maxBodySize: Int
    /// `HERALD_USER_JWT_SECRET`: the HS256 key of user tokens.
    var userJWTSecret: [UInt8]?
    /// `HERALD_USER_JWT_PUBLIC_KEY`: a PEM file with the ES256 key of user tokens; read when the server starts.
    var userJWTPublicKeyPath: String?

    init(_ flags: ServerOptions, _ settings: SettingSource) throws {
        host = settings.string(flags.host, "HERALD_HOST") ?? "127.0.0.1"
        port = try settings.integer(flags.port, "HERALD_PORT") ?? 8080
        guard (0...65535).contains(port) else { throw CommandFailure("HERALD_PORT must be 0 to 65535") }
        maxBodySize = try settings.integer(flags.maxBodyBytes, "HERALD_MAX_BODY_BYTES") ?? 64 * 1024
        guard maxBodySize >= 1024 else { throw CommandFailure("HERALD_MAX_BODY_BYTES must be at least 1024") }
        userJWTSecret = settings.string(nil, "HERALD_USER_JWT_SECRET").map { Array($0.utf8) }
        userJWTPublicKeyPath = settings.string(flags.userJWTPublicKey, "HERALD_USER_JWT_PUBLIC_KEY")
    }
}
