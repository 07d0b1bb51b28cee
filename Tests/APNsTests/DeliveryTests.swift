import APNs
import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldTesting
import Logging
import Testing

extension Networked {
    @Suite
    struct DeliveryTests {
        @Test func acceptedPushCarriesEveryHeaderApplesRulesNeed() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let id = APNsID()
            let request = try PushRequest(
                apnsID: id, deviceToken: MockHarness.deviceToken(), bundleID: MockHarness.bundleID, pushType: .voip,
                priority: .immediate, expiration: .at(Date(timeIntervalSince1970: 2_000_000_000)),
                collapseID: CollapseID("thread-1"), payload: Payload(aps: APS(alert: Alert(body: "Call"))))
            let result = try await harness.withPool(harness.configuration()) { try await $0.send(request) }

            let uniqueID = try #require(result.uniqueID)
            #expect(result == .accepted(PushReceipt(apnsID: id, uniqueID: uniqueID)))
            let recorded = try #require(harness.mock.recordedRequests.first)
            #expect(recorded.method == "POST")
            #expect(recorded.path == "/3/device/" + MockHarness.deviceToken().hex)
            #expect(recorded.header("apns-push-type") == "voip")
            #expect(recorded.header("apns-topic") == MockHarness.bundleID + ".voip")
            #expect(recorded.header("apns-priority") == "10")
            #expect(recorded.header("apns-expiration") == "2000000000")
            #expect(recorded.header("apns-collapse-id") == "thread-1")
            #expect(recorded.header("apns-id") == id.description)
            #expect(recorded.header("authorization")?.hasPrefix("bearer ") == true)
            #expect(recorded.neverIndexedHeaders.isSuperset(of: [":path", "authorization"]))
            #expect(!recorded.neverIndexedHeaders.contains("apns-topic"))
            #expect(String(decoding: recorded.body, as: UTF8.self) == #"{"aps":{"alert":{"body":"Call"}}}"#)
        }

        /// Shortening happens before sending: the mock sees a fitting payload and accepts it.
        @Test func shortenedPayloadIsAcceptedByTheMock() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let request = try MockHarness.alert(
                MockHarness.deviceToken(), body: String(repeating: "long ", count: 2000))
            let result = try await harness.withPool(harness.configuration()) { try await $0.send(request) }
            #expect(result.uniqueID != nil)
            #expect(try #require(harness.mock.recordedRequests.first).body.count <= 4096)
        }
    }
}

extension PushResult {
    var uniqueID: String? {
        if case .accepted(let receipt) = self { receipt.uniqueID } else { nil }
    }
}

extension Networked {
    @Suite struct APNsClientTests {
        @Test func environmentsRouteToTheirOwnServers() async throws {
            let sandboxMock = try await MockHarness.start()
            defer { Task { try await sandboxMock.stop() } }
            // The production mock trusts the same key as the sandbox one: same team, same key, two servers.
            let productionTrustingSameKey = try APNsMockServer(
                configuration: APNsMockConfiguration(
                    teamID: MockHarness.teamID, keys: [sandboxMock.key.keyID: sandboxMock.key.publicKeyPEM]))
            try await productionTrustingSameKey.start()
            let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-ca-\(UUID()).pem").path
            try
                (sandboxMock.mock.certificateAuthority.caCertificatePEM + "\n"
                + productionTrustingSameKey.certificateAuthority.caCertificatePEM)
                .write(toFile: caFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: caFile) }
            let trust = TLSClientConfiguration(additionalCAFile: caFile)
            let client = try APNsClient(
                tokens: sandboxMock.tokenSource(),
                sandbox: APNsClientConfiguration(
                    endpoint: APNsEndpoint(host: "127.0.0.1", port: sandboxMock.mock.port), connectionCount: 1,
                    tls: trust),
                production: APNsClientConfiguration(
                    endpoint: APNsEndpoint(host: "127.0.0.1", port: productionTrustingSameKey.port), connectionCount: 1,
                    tls: trust),
                logger: Logger(label: "test"))
            let runner = Task { await client.run() }
            let toSandbox = try await client.send(MockHarness.alert(MockHarness.deviceToken()), environment: .sandbox)
            let toProduction = try await client.send(
                MockHarness.alert(MockHarness.deviceToken()), environment: .production)
            runner.cancel()
            await runner.value
            try await productionTrustingSameKey.stop()
            #expect(toSandbox.uniqueID != nil)
            #expect(toProduction.uniqueID != nil)
            #expect(sandboxMock.mock.recordedRequests.count == 1)
            #expect(productionTrustingSameKey.recordedRequests.count == 1)
            #expect(
                sandboxMock.mock.recordedRequests.first?.header("authorization")
                    == productionTrustingSameKey.recordedRequests.first?.header("authorization"),
                "one token for the team, shared by both environments")
        }
    }
}
