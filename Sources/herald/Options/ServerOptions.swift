import ArgumentParser

/// `herald serve`'s own flags; ``HTTPSettings`` adds the environment and defaults.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on. Default: $HERALD_HOST, else 127.0.0.1.") var host: String?
    @Option(help: "Port to listen on (0: any free port). Default: $HERALD_PORT, else 8080.") var port: Int?
    @Option(help: "Largest request body in bytes. Default: $HERALD_MAX_BODY_BYTES, else 65536.") var maxBodyBytes: Int?
    @Option(
        help:
            "API requests in progress at once; more are answered 503 at once. Default: $HERALD_MAX_CONCURRENT_REQUESTS, else 512."
    ) var maxConcurrentRequests: Int?
    @Option(help: "Database sessions of the API. Default: $HERALD_DATABASE_POOL_SIZE, else 16.") var databasePoolSize:
        Int?
    @Option(
        help:
            "Seconds an API statement may run before the server cancels it. Default: $HERALD_API_STATEMENT_TIMEOUT_SECONDS, else 5."
    ) var apiStatementTimeoutSeconds: Int?
    @Option(
        help: ArgumentHelp(
            "PEM public key (P-256) for ES256 user tokens. Default: $HERALD_USER_JWT_PUBLIC_KEY.", valueName: "file"))
    var userJWTPublicKey: String?

    func validate() throws {
        if let port, !HTTPSettings.ports.contains(port) { throw ValidationError("--port must be 0 to 65535") }
        if let maxBodyBytes, maxBodyBytes < HTTPSettings.smallestBodyLimit {
            throw ValidationError("--max-body-bytes must be at least \(HTTPSettings.smallestBodyLimit)")
        }
        if let databasePoolSize, databasePoolSize < 1 { throw ValidationError("--database-pool-size must be positive") }
        if let apiStatementTimeoutSeconds, apiStatementTimeoutSeconds < 1 {
            throw ValidationError("--api-statement-timeout-seconds must be positive")
        }
    }
}
