import APNs
import APNsCore
import APNsMock
import Cryptography
import Foundation
import Glibc
import HeraldTesting
import LocalServices
import Logging
import Postgres
import Synchronization
import Testing

extension Networked {
    /// `kill -9` of `herald serve` while APNs clients wait on its ingress, then a restart: every push a client was
    /// answered 200 for reaches `apns-mock`, before the kill or after the restart, and each push is stored once.
    @Suite struct IngressCrashDrillTests {
        @Test func aKilledIngressLosesNoPushItAnswered() async throws {
            let harness = try await EngineHarness.start()
            harness.sandbox.setResponseDelay(.milliseconds(20))
            let folder = FileManager.default.temporaryDirectory
            let files = (
                key: EngineHarness.keyFile(),
                ca: folder.appendingPathComponent("herald-ingress-ca-\(UUID()).pem").path,
                certificate: folder.appendingPathComponent("herald-ingress-cert-\(UUID()).pem").path,
                privateKey: folder.appendingPathComponent("herald-ingress-key-\(UUID()).pem").path
            )
            defer {
                for file in [files.key, files.ca, files.certificate, files.privateKey] {
                    try? FileManager.default.removeItem(atPath: file)
                }
            }
            let authority = try MockCertificateAuthority()
            try authority.writeCACertificate(to: files.ca)
            try Data(authority.serverCertificatePEM.utf8).write(to: URL(fileURLWithPath: files.certificate))
            try Data(authority.serverKeyPEM.utf8).write(to: URL(fileURLWithPath: files.privateKey))
            let port = try freeLoopbackPort()
            var environment = try harness.heraldEnvironment(keyFile: files.key)
            environment["HERALD_APNS_INGRESS_PORT"] = String(port)
            environment["HERALD_APNS_INGRESS_CERT_FILE"] = files.certificate
            environment["HERALD_APNS_INGRESS_KEY_FILE"] = files.privateKey
            environment["HERALD_APNS_INGRESS_WAIT"] = "2"
            environment["HERALD_DELIVERY_LEASE_SECONDS"] = "2"

            let first = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            try await first.waitFor("APNs ingress listens")
            let count = 300
            let pushes = try (0..<count).map { try MockHarness.alert(MockHarness.deviceToken(prefix: "c1", index: $0)) }
            let pool = try APNsConnectionPool(
                configuration: APNsClientConfiguration(
                    endpoint: APNsEndpoint(host: "127.0.0.1", port: port), connectionCount: 2,
                    requestTimeout: .seconds(60), connectTimeout: TestTimeouts.apnsConnect,
                    tls: TLSClientConfiguration(additionalCAFile: files.ca)),
                tokens: ProviderTokenSource(
                    key: P256PrivateKey(pem: harness.key.privateKeyPEM), keyID: harness.key.keyID,
                    teamID: EngineHarness.teamID, logger: Logger(label: "test.client-tokens")),
                logger: Logger(label: "test.client"))
            let runner = Task { await pool.run() }
            let acceptedSoFar = AnswerCount()
            let sending = Task {
                await withTaskGroup(of: (APNsID, Bool).self) { group in
                    for push in pushes {
                        group.addTask {
                            guard case .accepted = try? await pool.send(push) else { return (push.apnsID, false) }
                            acceptedSoFar.add()
                            return (push.apnsID, true)
                        }
                    }
                    var answers: [(APNsID, Bool)] = []
                    for await answer in group { answers.append(answer) }
                    return answers
                }
            }
            // Killed once a third of the pushes are answered, while the rest wait on their streams or in the outbox.
            let deadline = ContinuousClock.now + .seconds(30)
            while acceptedSoFar.value < count / 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            _ = await first.stop(with: SIGKILL)
            let second = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            try await second.waitFor("APNs ingress listens")
            let answers = await sending.value
            runner.cancel()
            await runner.value
            let accepted = Set(answers.filter(\.1).map(\.0.description))
            // Every push stored is delivered, answered or not: the ones the kill left in the outbox after the restart.
            let stored = try await harness.client.query("SELECT id FROM notifications WHERE type = 'apns'")
                .decode(UUID.self).map { $0.uuidString.lowercased() }
            var missing = accepted.union(stored)
            for _ in 0..<300 where !missing.isEmpty {
                let delivered = harness.sandbox.recordedRequests.filter { $0.verdict.status == 200 }
                missing.subtract(delivered.compactMap { $0.header("apns-id") })
                if !missing.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            }
            _ = await second.stop()
            #expect(accepted.count >= count / 3, "\(accepted.count) of \(count) pushes were answered 200")
            #expect(accepted.isSubset(of: stored), "a push answered 200 was stored")
            #expect(missing.isEmpty, "\(missing.count) pushes stored or answered 200 never reached apns-mock")
            print("ingress crash drill: \(accepted.count) of \(count) answered 200, \(stored.count) stored, none lost")
            try await harness.stop()
        }
    }
}

/// How many pushes have been answered 200 so far, counted by the tasks that send them.
private final class AnswerCount: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    func add() { count.withLock { $0 += 1 } }
}
