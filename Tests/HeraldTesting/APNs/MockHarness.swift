public import APNs
public import APNsCore
public import APNsMock
import Cryptography
public import Foundation
import Logging
import Synchronization

/// A running `apns-mock` plus a pool of Herald's client pointed at it, over real TLS and HTTP/2.
public struct MockHarness: Sendable {
    public static let teamID = "TEAM123456"
    public static let bundleID = "com.example.herald"

    public let key: TestSigningKey
    public let mock: APNsMockServer
    public let caFile: String

    /// Starts a mock trusting a fresh key.
    public static func start(
        applicationProtocols: [String] = ["h2"], serverNames: [String] = ["localhost", "127.0.0.1"],
        streamLimit: Int = 1000, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> MockHarness {
        let key = TestSigningKey.generate()
        let mock = try APNsMockServer(
            configuration: APNsMockConfiguration(
                teamID: teamID, keys: [key.keyID: key.publicKeyPEM], bundleIDs: [bundleID],
                applicationProtocols: applicationProtocols, raisedMaxConcurrentStreams: streamLimit,
                serverNames: serverNames, now: now))
        try await mock.start()
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-mock-ca-\(UUID()).pem").path
        try mock.certificateAuthority.writeCACertificate(to: caFile)
        return MockHarness(key: key, mock: mock, caFile: caFile)
    }

    public func tokenSource(clock: any WallClock = SystemWallClock()) throws -> ProviderTokenSource {
        try ProviderTokenSource(
            key: P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: Self.teamID, clock: clock,
            logger: Logger(label: "test"))
    }

    public func configuration(
        connections: Int = 1, requestTimeout: Duration = TestTimeouts.apnsRequest, trustMock: Bool = true,
        host: String = "127.0.0.1"
    ) -> APNsClientConfiguration {
        APNsClientConfiguration(
            endpoint: APNsEndpoint(host: host, port: mock.port), connectionCount: connections,
            requestTimeout: requestTimeout, connectTimeout: TestTimeouts.apnsConnect,
            tls: TLSClientConfiguration(additionalCAFile: trustMock ? caFile : nil))
    }

    /// Runs `body` with a running pool; stops the pool and the mock afterwards.
    public func withPool<T: Sendable>(
        _ configuration: APNsClientConfiguration, tokens: ProviderTokenSource? = nil,
        _ body: (APNsConnectionPool) async throws -> T
    ) async throws -> T {
        let pool = try APNsConnectionPool(
            configuration: configuration, tokens: tokens ?? tokenSource(), logger: Logger(label: "test"))
        let runner = Task { await pool.run() }
        defer { runner.cancel() }
        let result = try await body(pool)
        runner.cancel()
        await runner.value
        return result
    }

    public func stop() async throws {
        try await mock.stop()
        try? FileManager.default.removeItem(atPath: caFile)
    }

    /// A valid 32-byte token, optionally starting with `prefix` (hex).
    public static func deviceToken(prefix: String = "", index: Int = 0) -> DeviceToken {
        let suffix = String(format: "%016x", index)
        let filler = String(repeating: "a", count: 64 - prefix.count - suffix.count)
        return DeviceToken(hex: prefix + filler + suffix)!
    }

    public static func alert(_ token: DeviceToken, id: APNsID = APNsID(), body: String = "Hello") throws -> PushRequest
    {
        try PushRequest(
            apnsID: id, deviceToken: token, bundleID: bundleID, pushType: .alert,
            payload: Payload(aps: APS(alert: Alert(title: "Herald", body: body))))
    }
}

/// A clock tests move by hand.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) { current = Mutex(start) }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
