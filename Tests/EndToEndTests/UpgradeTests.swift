import APNsMock
import Cryptography
import Foundation
import FoundationNetworking
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// An installation from before apps existed (schema 18, one app in `APNS_*`), upgraded by `herald serve
    /// --migrate` with the same settings: its devices join the default app, its API key keeps today's meaning, and
    /// it delivers exactly as before, every push on the settings' topic and signed by the settings' key.
    @Suite struct UpgradeTests {
        static let schemaBeforeApps = 18

        @Test func aSingleAppInstallationDeliversAsBeforeAfterTheUpgrade() async throws {
            let migrations = try HeraldSchema.migrations(in: Repository.migrations)
            let before = Array(migrations.prefix { $0.version <= Self.schemaBeforeApps })
            #expect(before.count == Self.schemaBeforeApps && migrations.count > before.count)
            let url = try await TestDatabases.shared.migratedDatabase(before)
            let harness = try await EngineHarness.start(databaseURL: url)
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }

            // What the old schema holds: devices without an app, a fan-out waiting, and an API key.
            let devices = 100
            let waiting = try await harness.insertFanOut(count: devices, tokenPrefix: "0a")
            let secret = "hk_" + Base64URL.encode(SecureRandom.bytes(count: 32))
            try await harness.client.execute(
                """
                INSERT INTO api_keys (name, prefix, key_hash, scope)
                VALUES ('backend', \(String(secret.prefix(11))), \(SHA256.hexDigest(Data(secret.utf8))), 'admin')
                """)

            let server = try BuiltProgram.herald.start(
                ["serve", "--migrate", "--port", "0", "--migrations", Repository.migrations.path],
                environment: try harness.heraldEnvironment(keyFile: keyFile))
            let base = "http://127.0.0.1:\(try await server.servingPort())/api/v1"
            var sent = 0
            for _ in 0..<300 where sent < devices {
                sent = try await harness.states(of: waiting)["sent"] ?? 0
                if sent < devices { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(sent == devices, "the fan-out waiting before the upgrade is delivered")

            // The old key still sees every app, and a send with it reaches the old devices.
            let (apps, appsStatus) = try await Self.get(base + "/apps", key: secret)
            #expect(appsStatus == 200 && apps.contains(#""id":"default""#), "\(apps)")
            let user = try await harness.client.query(
                "SELECT u.external_id FROM users u JOIN device_tokens d ON d.user_id = u.id LIMIT 1"
            ).scalar(String.self)
            let send = try await Self.post(
                base + "/notifications", key: secret, body: #"{"userIds":["\#(user)"],"alert":{"body":"again"}}"#)
            #expect(send == 202)
            for _ in 0..<300 where harness.sandbox.recordedRequests.count < 2 * devices {
                try await Task.sleep(for: .milliseconds(100))
            }
            _ = await server.stop()

            let requests = harness.sandbox.recordedRequests
            #expect(requests.count == 2 * devices, "no push lost or sent twice")
            #expect(requests.allSatisfy { $0.header("apns-topic") == EngineHarness.bundleID })
            #expect(
                requests.allSatisfy { KeyRoutingTests.keyID($0.header("authorization")) == harness.key.keyID })
            #expect(
                requests.allSatisfy {
                    if case .accept = $0.verdict { true } else { false }
                })
            let orphans = try await harness.client.query(
                """
                SELECT count(*) FROM device_tokens d
                WHERE d.app_id IS DISTINCT FROM (SELECT id FROM apps WHERE is_default)
                """
            ).scalar(Int.self)
            #expect(orphans == 0, "every device of before the upgrade belongs to the default app")
            try await harness.stop()
        }

        static func get(_ url: String, key: String) async throws -> (String, Int) {
            var request = URLRequest(url: URL(string: url)!)
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            return (String(decoding: data, as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0)
        }

        static func post(_ url: String, key: String, body: String) async throws -> Int {
            var request = URLRequest(url: URL(string: url)!)
            request.httpMethod = "POST"
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
    }
}
