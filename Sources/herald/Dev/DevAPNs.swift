import APNs
import APNsCore
import APNsMock
import CoreMetrics
import Foundation
import HeraldCore
import Logging
import Postgres

/// The APNs side of `herald dev`: apns-mock on loopback, trusting a signing key kept in the data folder, and the
/// APNs settings that send both environments to it.
struct DevAPNs {
    static let teamID = "DEVTEAM0001"
    static let bundleID = "dev.herald.demo"

    private let server: APNsMockServer
    private let settings: APNsSettings
    private let received: AsyncStream<MockRecordedRequest>.Continuation
    private let reporter: Task<Void, Never>

    /// The mock's port on 127.0.0.1.
    var port: Int { server.port }

    /// Starts the mock on a free loopback port, showing each push it receives on standard output.
    static func start(in folder: DevDataFolder) async throws -> DevAPNs {
        let directory = try folder.apnsDirectory()
        let key = try signingKey(in: directory)
        // The mock hands each request over from its event loop; the lines are built and written here instead, so a
        // slow terminal never holds up the mock.
        let (requests, received) = AsyncStream.makeStream(
            of: MockRecordedRequest.self, bufferingPolicy: .bufferingNewest(10_000))
        let reporter = Task {
            for await request in requests { Console.line(PushReport.line(for: request)) }
        }
        let server = try APNsMockServer(
            configuration: APNsMockConfiguration(
                teamID: teamID, keys: [key.keyID: key.privateKeyPEM], bundleIDs: [bundleID],
                recordsRequests: false,
                // Every restart of Herald signs a new provider token; Apple's 20-minute rule would refuse them.
                limitsTokenUpdates: false,
                onRequest: { received.yield($0) }))
        // The mock makes a new CA on every start, so the file is rewritten each time.
        let caFile = directory.appendingPathComponent("apns-mock-ca.pem")
        try server.certificateAuthority.writeCACertificate(to: caFile.path)
        try await server.start()
        let mockURL = "https://127.0.0.1:\(server.port)"
        // Broadcasts and channel management go to the mock too.
        let settings = try APNsSettings.resolve(
            environment: ["HERALD_APNS_HOST": "127.0.0.1", "HERALD_APNS_PORT": String(server.port)],
            flags: .init(
                keyID: key.keyID, teamID: teamID, keyPath: key.path, bundleID: bundleID, production: false,
                sandboxURL: mockURL, productionURL: mockURL, caFile: caFile.path, connections: 1))
        return DevAPNs(server: server, settings: settings, received: received, reporter: reporter)
    }

    /// The delivery engine, sending both environments to the mock.
    func deliveryRuntime(client: PostgresClient, metrics: any MetricsFactory, logger: Logger) throws -> DeliveryRuntime
    {
        try DeliveryRuntime(
            client: client, settings: settings,
            configuration: DeliveryEngineConfiguration(bundleID: Self.bundleID, keyID: settings.keyID),
            webhook: nil, masterKey: nil, metrics: metrics, logger: logger)
    }

    /// Closes the mock's socket and its connections, then prints what it still had to report.
    func stop() async throws {
        try await server.stop()
        received.finish()
        await reporter.value
    }

    /// The `.p8` key in `directory` (`AuthKey_<KEYID>.p8`, as Apple names them), made on the first run.
    private static func signingKey(in directory: URL) throws -> (keyID: String, privateKeyPEM: String, path: String) {
        let saved = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().first {
            $0.hasPrefix("AuthKey_") && $0.hasSuffix(".p8")
        }
        if let saved {
            let path = directory.appendingPathComponent(saved).path
            let keyID = String(saved.dropFirst("AuthKey_".count).dropLast(".p8".count))
            guard let pem = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) })
            else { throw CommandFailure("cannot read \(path)") }
            return (keyID, pem, path)
        }
        let key = TestSigningKey.generate()
        let file = directory.appendingPathComponent("AuthKey_\(key.keyID).p8")
        try DevDataFolder.writePrivately(Data(key.privateKeyPEM.utf8), to: file)
        return (key.keyID, key.privateKeyPEM, file.path)
    }
}
