import APNs
import APNsCore
import APNsMock
import AsyncHTTPClient
import Cryptography
import Foundation
import HeraldCore
import HeraldIngress
import HeraldTesting
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Postgres
import Testing

/// An APNs ingress over a fresh database, with a delivery engine sending to `apns-mock` (``EngineHarness``), the app
/// `shop` (``EngineHarness/bundleID``) and the harness's signing key on record, and two ways to reach it: Herald's
/// own APNs client (``send(_:tokens:)``), as an APNs client would, and a plain HTTP/2 client (``post(path:headers:body:)``)
/// for requests Herald's client would never make.
struct IngressHarness {
    static let appID = ExternalID("shop")!

    let engine: EngineHarness
    let ingressPort: Int
    let caFile: String
    private let files: [String]
    private let ingressTask: Task<Void, any Error>
    private let engineTask: Task<Void, Never>
    private let deliveryEngine: DeliveryEngine
    private let http: HTTPClient

    /// - Parameters:
    ///   - mode: The ingress's mode.
    ///   - wait: How long relayed answers are waited for.
    ///   - newKeyLookups: Lookups of API keys not seen before, per client address: a second, and at once.
    ///   - prepare: Runs against the database before the ingress starts (more apps, keys, API keys, devices).
    ///   - configure: Changes the rest of the ingress's configuration.
    static func start(
        mode: IngressConfiguration.Mode = .relay, wait: Duration = .seconds(10),
        newKeyLookups: (perSecond: Double, burst: Int) = (10, 20),
        prepare: (EngineHarness) async throws -> Void = { _ in },
        configure: (inout IngressConfiguration) -> Void = { _ in }
    ) async throws -> IngressHarness {
        let engine = try await EngineHarness.start()
        let keyFile = EngineHarness.keyFile()
        try engine.key.writePrivateKey(to: keyFile)
        _ = try await AppStore(client: engine.client).put(
            appID,
            AppDefinition(
                name: "Shop", bundleID: EngineHarness.bundleID, teamID: EngineHarness.teamID,
                defaultEnvironment: .sandbox))
        _ = try await SigningKeyStore(client: engine.client).add(
            SigningKeyDefinition(
                teamID: EngineHarness.teamID, keyID: engine.key.keyID, environments: .both, topics: []),
            keyPath: keyFile)
        try await prepare(engine)

        let authority = try MockCertificateAuthority(serverNames: ["localhost", "127.0.0.1"])
        let folder = FileManager.default.temporaryDirectory
        let (caFile, certificateFile, privateKeyFile) = (
            folder.appendingPathComponent("herald-ingress-ca-\(UUID()).pem").path,
            folder.appendingPathComponent("herald-ingress-cert-\(UUID()).pem").path,
            folder.appendingPathComponent("herald-ingress-key-\(UUID()).pem").path
        )
        try authority.writeCACertificate(to: caFile)
        try Data(authority.serverCertificatePEM.utf8).write(to: URL(fileURLWithPath: certificateFile))
        try Data(authority.serverKeyPEM.utf8).write(to: URL(fileURLWithPath: privateKeyFile))

        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        var configuration = IngressConfiguration(
            port: 0, certificateFile: certificateFile, privateKeyFile: privateKeyFile, wait: wait, mode: mode,
            newKeyLookupsPerSecond: newKeyLookups.perSecond, newKeyLookupBurst: newKeyLookups.burst)
        configure(&configuration)
        let ingress = try APNsIngress(
            configuration: configuration,
            store: IngressStore(client: engine.client), apiKeys: APIKeyStore(client: engine.client),
            logger: Logger(label: "test.ingress"),
            onListening: { port in
                listening.yield(port)
                listening.finish()
            })
        let ingressTask = Task { try await ingress.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            ingressTask.cancel()
            try await ingressTask.value
            throw IngressHarnessError(description: "the ingress stopped before it listened")
        }
        let deliveryEngine = engine.makeEngine()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        var clientConfiguration = HTTPClient.Configuration(tlsConfiguration: tls)
        clientConfiguration.httpVersion = .automatic
        return IngressHarness(
            engine: engine, ingressPort: port, caFile: caFile,
            files: [keyFile, caFile, certificateFile, privateKeyFile],
            ingressTask: ingressTask, engineTask: Task { await deliveryEngine.run() }, deliveryEngine: deliveryEngine,
            http: HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration))
    }

    /// Stops the client, the ingress, the engine and the harness, and removes the files it wrote.
    func stop() async throws {
        try await http.shutdown()
        ingressTask.cancel()
        try await ingressTask.value
        deliveryEngine.shutdownGracefully()
        await engineTask.value
        try await engine.stop()
        for file in files { try? FileManager.default.removeItem(atPath: file) }
    }

    // MARK: Herald's APNs client as the sender

    /// A token source signing with `key` as team `teamID`'s key, on `clock`.
    static func tokens(
        _ key: TestSigningKey, teamID: String = EngineHarness.teamID, clock: any WallClock = SystemWallClock()
    ) throws -> ProviderTokenSource {
        try ProviderTokenSource(
            key: P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: teamID, clock: clock,
            logger: Logger(label: "test.client-tokens"))
    }

    /// A token source that sends `credential` as it is (`authorization: bearer <credential>`): an API key, or a token
    /// made by hand.
    func tokens(sending credential: String) throws -> ProviderTokenSource {
        let source = try Self.tokens(engine.key)
        source.adopt(SharedProviderToken(jwt: credential, issuedAt: Date()))
        return source
    }

    /// Sends `requests` to the ingress through an APNs connection pool signing with `tokens` (default: the harness's
    /// key, which Herald holds), and returns the answers in order.
    func send(_ requests: [PushRequest], tokens: ProviderTokenSource? = nil) async throws -> [PushResult] {
        let pool = try APNsConnectionPool(
            configuration: APNsClientConfiguration(
                endpoint: APNsEndpoint(host: "127.0.0.1", port: ingressPort), connectionCount: 1,
                requestTimeout: TestTimeouts.apnsRequest, connectTimeout: TestTimeouts.apnsConnect,
                tls: TLSClientConfiguration(additionalCAFile: caFile)),
            tokens: tokens ?? Self.tokens(engine.key), logger: Logger(label: "test.client"))
        let runner = Task { await pool.run() }
        defer { runner.cancel() }
        var results: [PushResult] = []
        for request in requests { results.append(try await pool.send(request)) }
        runner.cancel()
        await runner.value
        return results
    }

    // MARK: A plain HTTP/2 client

    /// What the ingress answered a plain request.
    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: [String: Any]

        var reason: String? { body["reason"] as? String }
        var apnsID: String? { headers.first(name: "apns-id") }
    }

    /// Sends one request over HTTP/2 and returns the answer.
    /// - Parameter authorized: Adds `authorization: bearer <provider token>` signed with the harness's key.
    func post(
        path: String, method: HTTPMethod = .POST, headers: [(String, String)], body: [UInt8], authorized: Bool = true
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: "https://127.0.0.1:\(ingressPort)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if authorized {
            request.headers.add(
                name: "authorization", value: "bearer \(try Self.tokens(engine.key).currentToken().jwt)")
        }
        if !body.isEmpty { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        #expect(response.version == .http2, "the ingress speaks HTTP/2")
        let bytes = try await response.body.collect(upTo: 1 << 16)
        let object = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
        return Answer(status: Int(response.status.code), headers: response.headers, body: object)
    }

    /// A push's headers as Apple's clients send them.
    static func headers(
        pushType: String = "alert", topic: String = EngineHarness.bundleID, priority: String? = nil,
        apnsID: String? = nil
    ) -> [(String, String)] {
        var headers = [("apns-push-type", pushType), ("apns-topic", topic)]
        if let priority { headers.append(("apns-priority", priority)) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        return headers
    }

    // MARK: The database

    /// How many relayed pushes are stored.
    func relayedCount() async throws -> Int {
        try await engine.client.query("SELECT count(*) FROM notifications WHERE type = 'apns'").scalar(Int.self)
    }

    /// Waits until `apns-mock` (sandbox) has answered a request for `token` with `status` (any, when nil), or `timeout`
    /// passes.
    func received(token: DeviceToken, status: Int? = nil, timeout: Duration = .seconds(20)) async throws
        -> MockRecordedRequest?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = engine.sandbox.recordedRequests.last {
                $0.deviceToken == token.hex && (status == nil || $0.verdict.status == status)
            }
            if let found { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}

struct IngressHarnessError: Error, CustomStringConvertible {
    let description: String
}
