import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import LocalServices
import Logging
import Postgres
import Testing

/// `herald devices` records, lists and removes a device's service tokens from the command line, never printing one.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct DevicesCommandTests {
    @Test func serviceTokensAreSetListedAndRemovedWithoutBeingShown() async throws {
        let url = try await TestDatabases.shared.heraldDatabase()
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        let ada = ExternalID("ada")!
        _ = try await Directory(client: client).putUser(
            ada, profile: try UserProfile(email: "ada@example.com", name: "Ada"))
        let device = try await DeviceStore(client: client).register(
            DeviceRegistration(token: DeviceToken(hex: Self.randomToken())!, platform: .iOS, environment: .sandbox),
            for: ada
        ).device.id.uuidString.lowercased()
        let token = Self.randomToken()

        let set = try await BuiltProgram.herald.run([
            "devices", "set-token", "--user", "ada", "--device", device, "--kind", "voip", "--token", token,
            "--database-url", url,
        ])
        #expect(set.status == 0 && set.output.contains("recorded the voip token"), "\(set.output)")
        let listed = try await BuiltProgram.herald.run(["devices", "list", "--user", "ada", "--database-url", url])
        #expect(listed.status == 0 && listed.output.contains(device), "\(listed.output)")
        #expect(listed.output.contains("tokens: voip") && !listed.output.contains(token), "\(listed.output)")
        let wrongKind = try await BuiltProgram.herald.run([
            "devices", "set-token", "--user", "ada", "--device", device, "--kind", "mdm", "--token", token,
            "--database-url", url,
        ])
        #expect(wrongKind.status != 0)
        let removed = try await BuiltProgram.herald.run([
            "devices", "remove-token", "--user", "ada", "--device", device, "--kind", "voip", "--database-url", url,
        ])
        #expect(removed.status == 0, "\(removed.output)")
        let after = try await BuiltProgram.herald.run(["devices", "list", "--user", "ada", "--database-url", url])
        #expect(after.output.contains("tokens: -"), "\(after.output)")
    }

    static func randomToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
