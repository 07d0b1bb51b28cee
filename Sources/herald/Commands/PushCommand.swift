import APNs
import APNsCore
import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Postgres

/// `herald push`: sends one push and prints Apple's answer. Exits 0 only when Apple accepted it.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send one push notification and print Apple's answer.",
        discussion: "Prints status, reason and apns-id; the exit status is 0 only when Apple accepted the push.")

    enum Environment: String, EnumerableFlag {
        case sandbox, production
    }

    @OptionGroup var apns: APNsOptions
    @OptionGroup var database: DatabaseOptions

    @Option(help: "Device token (hex).") var token: String
    @Option(help: "Alert body text.") var alert: String?
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Topic (bundle id; the push type's suffix is added). Default: APNS_BUNDLE_ID.") var topic: String?
    @Flag(help: "Environment (default: APNS_PRODUCTION).") var environment: Environment?
    @Option(
        help: ArgumentHelp(
            "Push type: alert, background, location, voip, complication, fileprovider, liveactivity, pushtotalk, "
                + "widgets, controls.")
    )
    var pushType = "alert"
    @Option(help: "Priority 10, 5 or 1 (default 10; 5 for background).") var priority: Int?
    @Option(help: "Collapse id (at most 64 bytes).") var collapseID: String?
    @Option(help: "Expiration, seconds since the epoch (0: deliver once, never store).") var expiration: Int?
    @Option(help: "JSON payload file (an alert given with --alert replaces its body).") var payload: String?
    @Option(help: "apns-id to use (UUID); generated when absent.") var apnsID: String?
    @Option(help: "Seconds to wait for Apple's answer.") var timeout = 30

    func validate() throws {
        guard DeviceToken(hex: token) != nil else {
            throw ValidationError("--token must be hexadecimal, 16 to 256 bytes")
        }
        guard alert != nil || payload != nil else { throw ValidationError("give --alert or --payload") }
        guard PushType(headerValue: pushType) != nil else { throw ValidationError("unknown --push-type \(pushType)") }
        if let priority, PushPriority(rawValue: priority) == nil {
            throw ValidationError("--priority must be 10, 5 or 1")
        }
        if let collapseID, CollapseID(collapseID) == nil {
            throw ValidationError("--collapse-id must be 1 to 64 bytes")
        }
        if let apnsID, APNsID(apnsID) == nil { throw ValidationError("--apns-id must be a UUID") }
    }

    func run() async throws {
        let heraldConfiguration = try HeraldConfiguration.resolve(database: database, apns: apns)
        var logger = heraldConfiguration.logger(label: "herald.push")
        // Its output is Apple's answer; routine connection notices would bury it.
        logger.logLevel = max(logger.logLevel, .warning)
        let settings = try heraldConfiguration.requireAPNs()
        guard let bundleID = topic ?? settings.bundleID else {
            throw ValidationError("give --topic or set APNS_BUNDLE_ID")
        }
        let request = try makeRequest(bundleID: bundleID)
        let target: APNsEnvironment =
            switch environment {
            case .sandbox: .sandbox
            case .production: .production
            case nil: settings.defaultEnvironment
            }
        var configuration = settings.clientConfiguration(for: target)
        configuration.connectionCount = 1
        configuration.requestTimeout = .seconds(timeout)
        let tokens = try settings.makeTokenSource(logger: logger)
        try await adoptFleetToken(tokens, configuration: heraldConfiguration, logger: logger)
        let pool = try APNsConnectionPool(configuration: configuration, tokens: tokens, logger: logger)
        let runner = Task { await pool.run() }
        let result = try await pool.send(request)
        runner.cancel()
        await runner.value
        print(Self.describe(result, environment: target, endpoint: configuration.endpoint))
        if case .accepted = result { return }
        throw ExitCode.failure
    }

    /// Signs with the provider token the fleet shares, read from the database, as every delivering process does:
    /// a token of this process's own could make Apple refuse the key's next update (TooManyProviderTokenUpdates)
    /// for the whole fleet. Without a database, it warns and signs its own.
    private func adoptFleetToken(
        _ tokens: ProviderTokenSource, configuration: HeraldConfiguration, logger: Logger
    ) async throws {
        guard configuration.database.url != nil else {
            logger.warning(
                """
                no DATABASE_URL: signing a provider token of this process's own; if Herald is delivering with this \
                key, Apple may refuse its next token update (TooManyProviderTokenUpdates)
                """)
            return
        }
        let client = try configuration.oneSessionClient(label: "herald.push")
        try await client.closing {
            try await ProviderTokenCoordinator(
                store: ProviderTokenStore(client: client), source: tokens, logger: logger
            )
            .synchronize()
        }
    }

    private func makeRequest(bundleID: String) throws -> PushRequest {
        let type = PushType(headerValue: pushType) ?? .alert
        let common = (
            id: apnsID.flatMap(APNsID.init) ?? APNsID(), token: DeviceToken(hex: token)!,
            priority: priority.flatMap(PushPriority.init(rawValue:)),
            expiration: expiration.map {
                $0 == 0 ? PushExpiration.immediately : .at(Date(timeIntervalSince1970: TimeInterval($0)))
            },
            collapse: collapseID.flatMap { CollapseID($0) }
        )
        var typed = Payload()
        if let path = payload {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read --payload \(path)")
            }
            guard alert != nil || title != nil else {
                return try PushRequest(
                    apnsID: common.id, deviceToken: common.token, bundleID: bundleID, pushType: type,
                    priority: common.priority, expiration: common.expiration, collapseID: common.collapse,
                    payloadJSON: data)
            }
            typed = try JSONDecoder().decode(Payload.self, from: data)
        }
        var alertContent = typed.aps.alert ?? Alert()
        if let alert { alertContent.body = alert }
        if let title { alertContent.title = title }
        typed.aps.alert = alertContent
        return try PushRequest(
            apnsID: common.id, deviceToken: common.token, bundleID: bundleID, pushType: type, priority: common.priority,
            expiration: common.expiration, collapseID: common.collapse, payload: typed)
    }

    static func describe(_ result: PushResult, environment: APNsEnvironment, endpoint: APNsEndpoint) -> String {
        var lines = ["environment: \(environment.rawValue) (\(endpoint))"]
        switch result {
        case .accepted(let receipt):
            lines += ["status: 200", "apns-id: \(receipt.apnsID)"]
            if let unique = receipt.uniqueID { lines.append("apns-unique-id: \(unique)") }
        case .rejected(let rejection):
            lines += ["status: \(rejection.status)", "reason: \(rejection.reason.name)"]
            if let id = rejection.apnsID { lines.append("apns-id: \(id)") }
            if let timestamp = rejection.timestamp {
                lines.append("timestamp: \(ISO8601DateFormatter().string(from: timestamp))")
            }
        case .failed(let failure):
            lines += ["status: none", "error: \(failure)"]
        }
        return lines.joined(separator: "\n")
    }
}
