import APNs
import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldTesting
import Testing

extension Networked {
    @Suite
    struct TLSFailureTests {
        @Test func serverWithoutHTTP2FailsWithClearALPNError() async throws {
            let harness = try await MockHarness.start(applicationProtocols: ["http/1.1"])
            defer { Task { try await harness.stop() } }
            let result = try await harness.withPool(harness.configuration()) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            guard case .failed(.connectionFailed(let detail)) = result else {
                Issue.record("expected a connection failure, got \(result)")
                return
            }
            #expect(detail.contains("ALPN \"h2\""))
            #expect(detail.contains("does not speak HTTP/2"))
        }

        @Test func untrustedCertificateFailsWithClearError() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let result = try await harness.withPool(harness.configuration(trustMock: false)) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            guard case .failed(.connectionFailed(let detail)) = result else {
                Issue.record("expected a connection failure, got \(result)")
                return
            }
            #expect(detail.contains("certificate of 127.0.0.1 rejected"))
            #expect(detail.contains("local issuer certificate"))
        }

        @Test func certificateForAnotherNameIsRejected() async throws {
            let harness = try await MockHarness.start(serverNames: ["push.example.com"])
            defer { Task { try await harness.stop() } }
            let result = try await harness.withPool(harness.configuration(host: "localhost")) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            guard case .failed(.connectionFailed(let detail)) = result else {
                Issue.record("expected a connection failure, got \(result)")
                return
            }
            #expect(detail.contains("certificate of localhost rejected"))
            #expect(detail.contains("hostname mismatch"))
        }

        @Test func trustedCertificateByDNSNameConnects() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            let result = try await harness.withPool(harness.configuration(host: "localhost")) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            #expect(result.uniqueID != nil)
        }

        @Test func unreadableCAFileIsAConfigurationError() {
            #expect(throws: TLSError.self) {
                try TLSContext(configuration: TLSClientConfiguration(additionalCAFile: "/nonexistent/ca.pem"))
            }
        }

        @Test func refusedPortFailsFast() async throws {
            let harness = try await MockHarness.start()
            let configuration = APNsClientConfiguration(
                endpoint: APNsEndpoint(host: "127.0.0.1", port: 1), requestTimeout: .seconds(30),
                tls: TLSClientConfiguration(additionalCAFile: harness.caFile))
            let started = ContinuousClock.now
            let result = try await harness.withPool(configuration) { pool in
                try await pool.send(MockHarness.alert(MockHarness.deviceToken()))
            }
            try await harness.stop()
            guard case .failed(.connectionFailed(let detail)) = result else {
                Issue.record("expected a connection failure, got \(result)")
                return
            }
            #expect(detail.contains("cannot connect to 127.0.0.1:1"))
            #expect(ContinuousClock.now - started < .seconds(15), "fails at once, not after the 30 s request timeout")
        }
    }
}
