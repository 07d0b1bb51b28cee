import APNs
import APNsCore
import Foundation

/// Herald's APNs settings: the signing key, team, app, environments and where each environment's
/// server is. Read from the environment (seed 004 §12.2 names plus `HERALD_APNS_*`), with command-line
/// flags overriding them.
///
/// | Variable | Flag | Default |
/// |---|---|---|
/// | `APNS_KEY_ID` | `--apns-key-id` | required |
/// | `APNS_TEAM_ID` | `--apns-team-id` | required |
/// | `APNS_KEY_PATH` | `--apns-key-path` | required |
/// | `APNS_BUNDLE_ID` | `--apns-bundle-id` | none (then `--topic` is needed) |
/// | `APNS_PRODUCTION` | `--apns-production` / `--no-apns-production` | `false` (sandbox) |
/// | `HERALD_APNS_HOST` | `--apns-host` | Apple's host per environment |
/// | `HERALD_APNS_PORT` | `--apns-port` | 443 |
/// | `HERALD_APNS_SANDBOX_URL` | `--apns-sandbox-url` | `https://api.sandbox.push.apple.com:443` |
/// | `HERALD_APNS_PRODUCTION_URL` | `--apns-production-url` | `https://api.push.apple.com:443` |
/// | `HERALD_APNS_CA_FILE` | `--apns-ca-file` | none (system trust store only) |
/// | `HERALD_APNS_CONNECTIONS` | `--apns-connections` | 2 |
/// | `HERALD_APNS_KEY_IDLE_SECONDS` | — | 600 |
/// | `HERALD_APNS_BROADCAST_SANDBOX_URL`, `…_PRODUCTION_URL` | — | Apple's push hosts (`HERALD_APNS_HOST` when set) |
/// | `HERALD_APNS_CHANNELS_SANDBOX_URL`, `…_PRODUCTION_URL` | — | `https://api-manage-broadcast(.sandbox).push.apple.com:2195/2196` (`HERALD_APNS_HOST` when set) |
struct APNsSettings: Sendable, Equatable {
    var keyID: String
    var teamID: String
    var keyPath: String
    var bundleID: String?
    /// The environment for devices registered without one, and for `herald push`.
    var defaultEnvironment: APNsEnvironment
    var sandbox: APNsEndpoint
    var production: APNsEndpoint
    /// An extra trusted CA file (for `apns-mock`).
    var caFile: String?
    /// Connections per environment.
    var connections: Int
    /// How long the connections of a signing key other than the settings' stay open with nothing to send.
    var keyIdleLifetime: Duration = .seconds(600)
    /// Where broadcasts and channel management requests go.
    var channels: APNsClient.ChannelEndpoints = .apple

    /// Values given as flags; each wins over its environment variable. Nil means "not given".
    struct Flags: Sendable, Equatable {
        var keyID: String?
        var teamID: String?
        var keyPath: String?
        var bundleID: String?
        var production: Bool?
        var host: String?
        var port: Int?
        var sandboxURL: String?
        var productionURL: String?
        var caFile: String?
        var connections: Int?

        init(
            keyID: String? = nil, teamID: String? = nil, keyPath: String? = nil, bundleID: String? = nil,
            production: Bool? = nil, host: String? = nil, port: Int? = nil, sandboxURL: String? = nil,
            productionURL: String? = nil, caFile: String? = nil, connections: Int? = nil
        ) {
            self.keyID = keyID
            self.teamID = teamID
            self.keyPath = keyPath
            self.bundleID = bundleID
            self.production = production
            self.host = host
            self.port = port
            self.sandboxURL = sandboxURL
            self.productionURL = productionURL
            self.caFile = caFile
            self.connections = connections
        }
    }

    /// Resolves `flag ?? environment ?? default` for every setting.
    /// - Parameters:
    ///   - environment: The process environment (pass `ProcessInfo.processInfo.environment`; tests pass a dictionary).
    ///   - flags: Command-line values.
    /// - Throws: ``APNsSettingsError`` naming the setting that is missing or malformed.
    static func resolve(environment: [String: String], flags: Flags) throws(APNsSettingsError) -> APNsSettings {
        func value(_ flag: String?, _ variable: String) -> String? {
            if let flag, !flag.isEmpty { return flag }
            if let text = environment[variable], !text.isEmpty { return text }
            return nil
        }
        func required(_ flag: String?, _ variable: String, _ option: String) throws(APNsSettingsError) -> String {
            guard let text = value(flag, variable) else { throw .missing(variable: variable, flag: option) }
            return text
        }
        let production = try defaultsToProduction(environment: environment, flag: flags.production)
        let connections: Int
        if let flag = flags.connections {
            connections = flag
        } else if let text = environment["HERALD_APNS_CONNECTIONS"], !text.isEmpty {
            guard let parsed = Int(text), parsed > 0 else {
                throw .malformed(variable: "HERALD_APNS_CONNECTIONS", value: text)
            }
            connections = parsed
        } else {
            connections = 2
        }
        var keyIdleLifetime = Duration.seconds(600)
        if let text = environment["HERALD_APNS_KEY_IDLE_SECONDS"], !text.isEmpty {
            guard let seconds = Int(text), seconds > 0 else {
                throw .malformed(variable: "HERALD_APNS_KEY_IDLE_SECONDS", value: text)
            }
            keyIdleLifetime = .seconds(seconds)
        }
        return APNsSettings(
            keyID: try required(flags.keyID, "APNS_KEY_ID", "--apns-key-id"),
            teamID: try required(flags.teamID, "APNS_TEAM_ID", "--apns-team-id"),
            keyPath: try required(flags.keyPath, "APNS_KEY_PATH", "--apns-key-path"),
            bundleID: value(flags.bundleID, "APNS_BUNDLE_ID"),
            defaultEnvironment: production ? .production : .sandbox,
            sandbox: try endpoint(for: .sandbox, environment: environment, flags: flags),
            production: try endpoint(for: .production, environment: environment, flags: flags),
            caFile: value(flags.caFile, "HERALD_APNS_CA_FILE"),
            connections: max(1, connections), keyIdleLifetime: keyIdleLifetime,
            channels: try channelEndpoints(environment: environment))
    }

    /// The server for `environment`.
    func endpoint(for environment: APNsEnvironment) -> APNsEndpoint {
        environment == .production ? production : sandbox
    }

    /// Each broadcast and management host from its variable, else `HERALD_APNS_HOST`/`HERALD_APNS_PORT` (one host
    /// standing in for all of Apple's, like `apns-mock`), else Apple's.
    private static func channelEndpoints(environment: [String: String]) throws(APNsSettingsError)
        -> APNsClient.ChannelEndpoints
    {
        let apple = APNsClient.ChannelEndpoints.apple
        var shared: APNsEndpoint?
        if let host = environment["HERALD_APNS_HOST"], !host.isEmpty {
            var port = 443
            if let text = environment["HERALD_APNS_PORT"], !text.isEmpty {
                guard let parsed = Int(text), (1...65535).contains(parsed) else {
                    throw .malformed(variable: "HERALD_APNS_PORT", value: text)
                }
                port = parsed
            }
            shared = APNsEndpoint(host: host, port: port)
        }
        func endpoint(_ variable: String, _ fallback: APNsEndpoint) throws(APNsSettingsError) -> APNsEndpoint {
            if let url = environment[variable], !url.isEmpty { return try parseURL(url, variable: variable) }
            return shared ?? fallback
        }
        return APNsClient.ChannelEndpoints(
            broadcastSandbox: try endpoint("HERALD_APNS_BROADCAST_SANDBOX_URL", apple.broadcastSandbox),
            broadcastProduction: try endpoint("HERALD_APNS_BROADCAST_PRODUCTION_URL", apple.broadcastProduction),
            managementSandbox: try endpoint("HERALD_APNS_CHANNELS_SANDBOX_URL", apple.managementSandbox),
            managementProduction: try endpoint("HERALD_APNS_CHANNELS_PRODUCTION_URL", apple.managementProduction))
    }

    /// Flags beat the environment as a whole layer; inside a layer, an environment's own URL beats the
    /// shared host and port.
    private static func endpoint(
        for target: APNsEnvironment, environment: [String: String], flags: Flags
    ) throws(APNsSettingsError) -> APNsEndpoint {
        let urlFlag = target == .production ? flags.productionURL : flags.sandboxURL
        let urlVariable = target == .production ? "HERALD_APNS_PRODUCTION_URL" : "HERALD_APNS_SANDBOX_URL"
        if let url = urlFlag, !url.isEmpty { return try parseURL(url, variable: urlVariable) }
        if flags.host != nil || flags.port != nil {
            return APNsEndpoint(host: flags.host ?? target.defaultHost, port: flags.port ?? 443)
        }
        if let url = environment[urlVariable], !url.isEmpty { return try parseURL(url, variable: urlVariable) }
        let host = environment["HERALD_APNS_HOST"].flatMap { $0.isEmpty ? nil : $0 }
        var port = 443
        if let text = environment["HERALD_APNS_PORT"], !text.isEmpty {
            guard let parsed = Int(text), (1...65535).contains(parsed) else {
                throw .malformed(variable: "HERALD_APNS_PORT", value: text)
            }
            port = parsed
        }
        return APNsEndpoint(host: host ?? target.defaultHost, port: port)
    }

    private static func parseURL(_ text: String, variable: String) throws(APNsSettingsError) -> APNsEndpoint {
        guard let components = URLComponents(string: text), components.scheme == "https",
            let host = components.host, !host.isEmpty
        else { throw .malformed(variable: variable, value: text) }
        return APNsEndpoint(host: host, port: components.port ?? 443)
    }

    /// Whether pushes without an environment of their own go to production: the flag, else `APNS_PRODUCTION`
    /// (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`), else sandbox.
    static func defaultsToProduction(
        environment: [String: String], flag: Bool?
    ) throws(APNsSettingsError) -> Bool {
        if let flag { return flag }
        guard let text = environment["APNS_PRODUCTION"], !text.isEmpty else { return false }
        guard let parsed = parseBool(text) else { throw .malformed(variable: "APNS_PRODUCTION", value: text) }
        return parsed
    }

    private static func parseBool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }
}

/// A missing or malformed APNs setting, named by its variable and flag.
enum APNsSettingsError: Error, Equatable, CustomStringConvertible, Sendable {
    case missing(variable: String, flag: String)
    case malformed(variable: String, value: String)

    var description: String {
        switch self {
        case .missing(let variable, let flag): "\(variable) is not set (or pass \(flag))"
        case .malformed(let variable, let value): "\(variable) has an invalid value \"\(value)\""
        }
    }
}
