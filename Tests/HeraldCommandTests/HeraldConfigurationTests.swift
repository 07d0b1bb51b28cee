import APNsCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldServer
import Logging
import Postgres
import Testing

@testable import herald

@Suite struct HeraldConfigurationTests {
    let apnsEnvironment = [
        "APNS_KEY_ID": "KEY1234567", "APNS_TEAM_ID": "TEAM123456", "APNS_KEY_PATH": "/keys/AuthKey.p8",
        "APNS_BUNDLE_ID": "com.example.app",
    ]

    func serve(_ arguments: [String], environment: [String: String]) throws -> HeraldConfiguration {
        let command = try ServeCommand.parse(arguments)
        return try HeraldConfiguration.resolve(
            environment: environment, database: command.database, apns: command.apns, delivery: command.delivery,
            server: command.server)
    }

    @Test func defaultsWithAnEmptyEnvironment() throws {
        let configuration = try serve([], environment: [:])
        #expect(configuration.logLevel == .info)
        #expect(configuration.database.url == nil)
        #expect(configuration.database.poolSize == 16)
        #expect(configuration.apns == nil)
        #expect(configuration.webhook == nil)
        #expect(configuration.defaultEnvironment == .sandbox)
        let http = try #require(configuration.http)
        #expect(http.host == "127.0.0.1" && http.port == 8080 && http.maxBodySize == 65536)
        #expect(throws: CommandFailure.self) { try configuration.database.configuration() }
        #expect(throws: CommandFailure.self) { try configuration.requireAPNs() }
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverDefaults() throws {
        let environment = apnsEnvironment.merging([
            "DATABASE_URL": "postgres://env/db", "HERALD_PORT": "9000", "HERALD_HOST": "0.0.0.0",
            "HERALD_DATABASE_POOL_SIZE": "8", "HERALD_DELIVERY_WORKERS": "3", "HERALD_LOG_LEVEL": "Debug",
            "APNS_PRODUCTION": "true",
        ]) { $1 }
        let configuration = try serve(
            [
                "--database-url", "postgres://flag/db", "--port", "9100", "--delivery-workers", "6",
                "--no-apns-production",
            ],
            environment: environment)
        #expect(configuration.database.url == "postgres://flag/db")
        #expect(configuration.database.poolSize == 8)
        #expect(configuration.http?.port == 9100)
        #expect(configuration.http?.host == "0.0.0.0")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.defaultEnvironment == .sandbox)
        let apns = try configuration.requireAPNs()
        let engine = try configuration.delivery.engineConfiguration(for: apns)
        #expect(engine.workers == 6)
        #expect(engine.bundleID == "com.example.app")
    }

    /// The API and the engine keep pools of their own; only the API's sessions get a statement timeout.
    @Test func theAPIAndTheEngineHaveTheirOwnSessions() throws {
        let defaults = try serve([], environment: [:])
        #expect(defaults.database.poolSize == 16)
        #expect(defaults.database.apiStatementTimeout == .seconds(5))
        #expect(defaults.delivery.enginePoolSize == 12, "4 workers, the immediate lane, 3 writers and 4 more")
        let environment = [
            "DATABASE_URL": "postgres://h/db", "HERALD_ENGINE_POOL_SIZE": "6",
            "HERALD_API_STATEMENT_TIMEOUT_SECONDS": "2", "HERALD_DELIVERY_WORKERS": "9",
        ]
        let configured = try serve(["--engine-pool-size", "7"], environment: environment)
        #expect(configured.delivery.enginePoolSize == 7)
        #expect(try configured.database.apiConfiguration().statementTimeout == .seconds(2))
        #expect(try configured.database.configuration().statementTimeout == nil)
        #expect(try serve([], environment: environment).delivery.enginePoolSize == 6)
        let command = try ServeCommand.parse(["--no-deliver"])
        let apiOnly = try HeraldConfiguration.resolve(
            environment: environment, database: command.database, apns: command.apns, delivery: command.delivery,
            server: command.server, sends: command.deliver)
        #expect(apiOnly.delivery.enginePoolSize == 6, "expansion keeps its own sessions without delivering too")
        for (variable, value) in [("HERALD_ENGINE_POOL_SIZE", "0"), ("HERALD_API_STATEMENT_TIMEOUT_SECONDS", "x")] {
            let error = #expect(throws: CommandFailure.self) { try serve([], environment: [variable: value]) }
            #expect(error?.description.contains(variable) == true, "\(variable)")
        }
    }

    @Test func rateLimitsHaveADefaultAndFollowTheRate() throws {
        #expect(try serve([], environment: [:]).http?.rateLimit == RateLimit(perSecond: 50, burst: 100))
        let faster = try serve([], environment: ["HERALD_RATE_LIMIT_PER_SECOND": "200"])
        #expect(faster.http?.rateLimit == RateLimit(perSecond: 200, burst: 400))
        let burst = try serve([], environment: ["HERALD_RATE_LIMIT_PER_SECOND": "5", "HERALD_RATE_LIMIT_BURST": "7"])
        #expect(burst.http?.rateLimit == RateLimit(perSecond: 5, burst: 7))
        for variable in ["HERALD_RATE_LIMIT_PER_SECOND", "HERALD_RATE_LIMIT_BURST"] {
            let error = #expect(throws: CommandFailure.self) { try serve([], environment: [variable: "0"]) }
            #expect(error?.description.contains(variable) == true)
        }
    }

    @Test func refusalsAreSlowedByDefault() throws {
        #expect(
            try serve([], environment: [:]).http?.refusals
                == RefusalThrottle(allowance: RateLimit(perSecond: 10, burst: 20), delay: .seconds(1)))
        let configured = try serve(
            [], environment: ["HERALD_REFUSALS_PER_SECOND": "3", "HERALD_REFUSAL_DELAY_MS": "0"])
        #expect(
            configured.http?.refusals
                == RefusalThrottle(allowance: RateLimit(perSecond: 3, burst: 6), delay: .zero))
        for (variable, value) in [("HERALD_REFUSALS_PER_SECOND", "0"), ("HERALD_REFUSAL_DELAY_MS", "-5")] {
            let error = #expect(throws: CommandFailure.self) { try serve([], environment: [variable: value]) }
            #expect(error?.description.contains(variable) == true, "\(variable)")
        }
    }

    @Test func statisticsAreSharedForAMinuteAtMost() throws {
        #expect(try serve([], environment: [:]).http?.longestStatsSharing == .seconds(60))
        let off = try serve([], environment: ["HERALD_STATS_SHARE_SECONDS": "0"])
        #expect(off.http?.longestStatsSharing == .zero)
        let error = #expect(throws: CommandFailure.self) {
            try serve([], environment: ["HERALD_STATS_SHARE_SECONDS": "-1"])
        }
        #expect(error?.description.contains("HERALD_STATS_SHARE_SECONDS") == true)
    }

    @Test func registrationLimitsHaveDefaults() throws {
        #expect(try serve([], environment: [:]).http?.registrationLimits == RegistrationLimits())
        #expect(RegistrationLimits() == RegistrationLimits(devicesPerUser: 50, activityTokensPerDevice: 20))
        let configured = try serve(
            [], environment: ["HERALD_MAX_DEVICES_PER_USER": "3", "HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE": "4"])
        #expect(
            configured.http?.registrationLimits == RegistrationLimits(devicesPerUser: 3, activityTokensPerDevice: 4))
        for variable in ["HERALD_MAX_DEVICES_PER_USER", "HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE"] {
            let error = #expect(throws: CommandFailure.self) { try serve([], environment: [variable: "-1"]) }
            #expect(error?.description.contains(variable) == true)
        }
    }

    @Test func malformedValuesAreRefusedNamingTheVariable() throws {
        for (variable, value) in [
            ("HERALD_PORT", "80a"), ("HERALD_DELIVERY_BATCH_SIZE", "0"), ("HERALD_LOG_LEVEL", "loud"),
            ("HERALD_WEBHOOK_URL", "ftp://hooks.example.com"), ("APNS_PRODUCTION", "perhaps"),
            ("HERALD_MAX_BODY_BYTES", "12"), ("HERALD_USER_JWT_SECRET", String(repeating: "s", count: 31)),
        ] {
            let error = #expect(throws: CommandFailure.self) { try serve([], environment: [variable: value]) }
            #expect(error?.description.contains(variable) == true, "\(variable): \(String(describing: error))")
        }
    }

    @Test func userTokenSettingsAreRead() throws {
        let secret = String(repeating: "s", count: 32)
        let configuration = try serve(
            [],
            environment: [
                "HERALD_USER_JWT_SECRET": secret, "HERALD_USER_JWT_AUDIENCE": "herald", "HERALD_USER_JWT_ISSUER": "me",
            ])
        let http = try #require(configuration.http)
        #expect(http.userJWTSecret == Array(secret.utf8))
        #expect(http.userJWTAudience == "herald" && http.userJWTIssuer == "me")
    }

    /// Commands read only the parts they have flags for: `herald migrate` does not trip over APNs or webhook
    /// settings it never uses.
    @Test func aCommandReadsOnlyItsOwnParts() throws {
        let environment = [
            "APNS_KEY_PATH": "/keys/AuthKey.p8", "HERALD_WEBHOOK_URL": "not a url", "HERALD_PORT": "x",
            "HERALD_DELIVERY_WORKERS": "x", "HERALD_DATABASE_POOL_SIZE": "0",
        ]
        let migrate = try MigrateCommand.Up.parse(["--database-url", "postgres://h/db"])
        let configuration = try HeraldConfiguration.resolve(environment: environment, database: migrate.database)
        #expect(configuration.database.url == "postgres://h/db")
        #expect(configuration.apns == nil && configuration.webhook == nil && configuration.http == nil)
    }

    /// An API-only replica reads its default environment and the webhook (it posts the interactions it records), but
    /// not the APNs key.
    @Test func serveWithoutDeliveringReadsTheWebhookButNoKey() throws {
        var environment = [
            "APNS_KEY_PATH": "/keys/AuthKey.p8", "HERALD_WEBHOOK_URL": "https://hooks.example.com/herald",
            "HERALD_WEBHOOK_SECRET": "s3cret", "APNS_PRODUCTION": "yes", "HERALD_DELIVERY_WORKERS": "x",
        ]
        let command = try ServeCommand.parse(["--no-deliver"])
        let configuration = try HeraldConfiguration.resolve(
            environment: environment, database: command.database, apns: command.apns, delivery: command.delivery,
            server: command.server, sends: command.deliver)
        #expect(configuration.apns == nil)
        #expect(configuration.webhook != nil)
        #expect(configuration.defaultEnvironment == .production)
        environment["HERALD_WEBHOOK_URL"] = "not a url"
        #expect(throws: CommandFailure.self) {
            try HeraldConfiguration.resolve(
                environment: environment, database: command.database, apns: command.apns,
                delivery: command.delivery, server: command.server, sends: command.deliver)
        }
    }

    @Test func anAPNsKeyNeedsItsTeamAndKeyID() throws {
        let command = try WorkerCommand.parse([])
        let error = #expect(throws: CommandFailure.self) {
            try HeraldConfiguration.resolve(
                environment: ["APNS_KEY_PATH": "/keys/AuthKey.p8"], apns: command.apns, delivery: command.delivery)
        }
        #expect(error?.description == "APNS_KEY_ID is not set (or pass --apns-key-id)")
    }

    @Test func theEngineNeedsABundleID() throws {
        var environment = apnsEnvironment
        environment["APNS_BUNDLE_ID"] = nil
        let configuration = try serve([], environment: environment)
        let apns = try configuration.requireAPNs()
        #expect(throws: CommandFailure.self) { try configuration.delivery.engineConfiguration(for: apns) }
    }
}
