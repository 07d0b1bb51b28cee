import APNs
import APNsCore
import ArgumentParser

/// The APNs settings as flags. Every option is optional and has no default here, so `--help` never
/// shows an environment value; ``APNsSettings/resolve(environment:flags:)`` applies flag ?? env ?? default.
struct APNsOptions: ParsableArguments {
    @Option(name: .customLong("apns-key-id"), help: "Signing key id (env APNS_KEY_ID).")
    var keyID: String?
    @Option(name: .customLong("apns-team-id"), help: "Apple Developer team id (env APNS_TEAM_ID).")
    var teamID: String?
    @Option(name: .customLong("apns-key-path"), help: "Path of the .p8 signing key (env APNS_KEY_PATH).")
    var keyPath: String?
    @Option(name: .customLong("apns-bundle-id"), help: "App bundle id, the default topic (env APNS_BUNDLE_ID).")
    var bundleID: String?
    @Flag(
        name: .customLong("apns-production"), inversion: .prefixedNo,
        help: "Default environment is production (env APNS_PRODUCTION; default sandbox).")
    var production: Bool?
    @Option(name: .customLong("apns-host"), help: "Send both environments to this host (env HERALD_APNS_HOST).")
    var host: String?
    @Option(name: .customLong("apns-port"), help: "Port for --apns-host (env HERALD_APNS_PORT; default 443).")
    var port: Int?
    @Option(
        name: .customLong("apns-sandbox-url"), help: "Sandbox server, https://host:port (env HERALD_APNS_SANDBOX_URL).")
    var sandboxURL: String?
    @Option(
        name: .customLong("apns-production-url"),
        help: "Production server, https://host:port (env HERALD_APNS_PRODUCTION_URL).")
    var productionURL: String?
    @Option(name: .customLong("apns-ca-file"), help: "Extra trusted CA certificate, PEM (env HERALD_APNS_CA_FILE).")
    var caFile: String?
    @Option(
        name: .customLong("apns-connections"),
        help: "Connections per environment (env HERALD_APNS_CONNECTIONS; default 2).")
    var connections: Int?

    var flags: APNsSettings.Flags {
        APNsSettings.Flags(
            keyID: keyID, teamID: teamID, keyPath: keyPath, bundleID: bundleID, production: production, host: host,
            port: port, sandboxURL: sandboxURL, productionURL: productionURL, caFile: caFile, connections: connections)
    }
}
