import APNs
import APNsCore
import Testing

@testable import herald

@Suite struct APNsSettingsTests {
    let base = ["APNS_KEY_ID": "KEY1234567", "APNS_TEAM_ID": "TEAM123456", "APNS_KEY_PATH": "/keys/AuthKey.p8"]

    @Test func defaultsAreApplesServersAndSandbox() throws {
        let settings = try APNsSettings.resolve(environment: base, flags: .init())
        #expect(settings.defaultEnvironment == .sandbox)
        #expect(settings.sandbox == APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443))
        #expect(settings.production == APNsEndpoint(host: "api.push.apple.com", port: 443))
        #expect(settings.caFile == nil)
        #expect(settings.bundleID == nil)
        #expect(settings.connections == 2)
    }

    @Test func flagsWinOverEnvironment() throws {
        var environment = base
        environment["APNS_PRODUCTION"] = "true"
        environment["APNS_BUNDLE_ID"] = "com.env"
        let settings = try APNsSettings.resolve(
            environment: environment, flags: .init(keyID: "FLAGKEY", bundleID: "com.flag", production: false))
        #expect(settings.keyID == "FLAGKEY")
        #expect(settings.teamID == "TEAM123456")
        #expect(settings.bundleID == "com.flag")
        #expect(settings.defaultEnvironment == .sandbox)
    }

    @Test func hostAndPortSendBothEnvironmentsToOneServer() throws {
        var environment = base
        environment["HERALD_APNS_HOST"] = "127.0.0.1"
        environment["HERALD_APNS_PORT"] = "9443"
        environment["HERALD_APNS_CA_FILE"] = "/tmp/ca.pem"
        let settings = try APNsSettings.resolve(environment: environment, flags: .init())
        #expect(settings.sandbox == APNsEndpoint(host: "127.0.0.1", port: 9443))
        #expect(settings.production == APNsEndpoint(host: "127.0.0.1", port: 9443))
        #expect(settings.caFile == "/tmp/ca.pem")
    }

    @Test func perEnvironmentURLsOverrideOneEnvironmentEach() throws {
        var environment = base
        environment["HERALD_APNS_HOST"] = "shared.example"
        environment["HERALD_APNS_SANDBOX_URL"] = "https://127.0.0.1:9443"
        let settings = try APNsSettings.resolve(environment: environment, flags: .init())
        #expect(settings.sandbox == APNsEndpoint(host: "127.0.0.1", port: 9443))
        #expect(settings.production == APNsEndpoint(host: "shared.example", port: 443))
        let flagged = try APNsSettings.resolve(
            environment: environment, flags: .init(productionURL: "https://prod.example:2197"))
        #expect(flagged.production == APNsEndpoint(host: "prod.example", port: 2197))
    }

    @Test func missingAndMalformedSettingsAreNamed() {
        #expect(throws: APNsSettingsError.missing(variable: "APNS_KEY_ID", flag: "--apns-key-id")) {
            try APNsSettings.resolve(environment: [:], flags: .init())
        }
        var environment = base
        environment["APNS_PRODUCTION"] = "maybe"
        #expect(throws: APNsSettingsError.malformed(variable: "APNS_PRODUCTION", value: "maybe")) {
            try APNsSettings.resolve(environment: environment, flags: .init())
        }
        environment["APNS_PRODUCTION"] = "1"
        environment["HERALD_APNS_SANDBOX_URL"] = "http://insecure:80"
        #expect(throws: APNsSettingsError.malformed(variable: "HERALD_APNS_SANDBOX_URL", value: "http://insecure:80")) {
            try APNsSettings.resolve(environment: environment, flags: .init())
        }
    }
}
