import APNs
import APNsCore
import APNsMock
import ArgumentParser
import CoreMetrics
import Cryptography
import Foundation
import HeraldCore
import HeraldIngress
import LocalServices
import Logging
import Postgres

/// What relaying through Herald's APNs ingress costs a client: the repository's own APNs client sends the same pushes
/// straight to `apns-mock`, then through the ingress of an in-process Herald (durable PostgreSQL, the delivery engine,
/// the same mock), in one run. Each push is answered with Apple's final answer in relay mode, so the second
/// measurement includes storing the push, claiming, sending and recording it.
@main
struct IngressBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingress-bench",
        abstract: "Measure Herald's APNs ingress against the same client sending straight to apns-mock.")

    @Option(help: "Pushes per measurement.") var pushes = 5_000
    @Option(help: "Pushes awaiting an answer at once.") var inFlight = 500
    @Option(help: "Pushes handed to the client at once by each sender.") var batch = 50
    @Option(help: "Client connections.") var connections = 2
    @Option(help: "Distinct device tokens the pushes go to (each measurement draws its own).") var devices = 1_000
    @Option(help: "Answer mode of the ingress: relay (Apple's final answer) or accept (once stored).")
    var mode = IngressConfiguration.Mode.relay.rawValue

    static let keyID = "BENCHKEY01"
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.herald"

    func validate() throws {
        guard pushes > 0, inFlight > 0, batch > 0, connections > 0, devices > 0 else {
            throw ValidationError("every count must be at least 1")
        }
        guard IngressConfiguration.Mode(rawValue: mode) != nil else {
            throw ValidationError("--mode must be relay or accept")
        }
    }

    private var answerMode: IngressConfiguration.Mode { IngressConfiguration.Mode(rawValue: mode) ?? .relay }

    func run() async throws {
        try await EmbeddedPostgres.withDatabase(
            url: ProcessInfo.processInfo.environment["DATABASE_URL"], options: .init(durable: true)
        ) { url in try await measure(databaseURL: url) }
    }

    private func measure(databaseURL url: String) async throws {
        var logger = Logger(label: "ingress-bench")
        logger.logLevel = .warning
        let client = PostgresClient(
            configuration: try PostgresConfiguration(url), options: .init(maximumConnections: 64), logger: logger)
        try await Migrator(
            client: client, migrations: try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!),
            logger: logger
        ).up()
        try await LogPartitions(client: client).ensure()

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingress-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = TestSigningKey.generate(keyID: Self.keyID)
        let keyFile = folder.appendingPathComponent("key.p8").path
        try key.writePrivateKey(to: keyFile)
        _ = try await AppStore(client: client).defineDefault(
            bundleID: Self.bundleID, teamID: Self.teamID, environment: .sandbox)
        _ = try await SigningKeyStore(client: client).defineDefault(
            teamID: Self.teamID, keyID: Self.keyID, keyPath: keyFile)

        let mock = try APNsMockServer(
            configuration: APNsMockConfiguration(
                teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM], bundleIDs: [Self.bundleID],
                recordsRequests: false))
        try await mock.start()
        let mockCA = folder.appendingPathComponent("mock-ca.pem").path
        try mock.certificateAuthority.writeCACertificate(to: mockCA)
        let tokens = ProviderTokenSource(
            key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: Self.keyID, teamID: Self.teamID, logger: logger)

        // Herald: the engine sends to the mock; the ingress listens with a certificate of its own.
        let toMock = APNsClientConfiguration(
            endpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), connectionCount: connections,
            requestTimeout: .seconds(60), tls: TLSClientConfiguration(additionalCAFile: mockCA))
        let apns = try APNsClient(tokens: tokens, sandbox: toMock, production: toMock, logger: logger)
        let apnsTask = Task { await apns.run() }
        let engine = DeliveryEngine(
            client: client, apns: apns,
            configuration: DeliveryEngineConfiguration(
                workerID: "ingress-bench", bundleID: Self.bundleID, keyID: Self.keyID),
            metrics: DeliveryMetrics(factory: NOOPMetricsHandler.instance), logger: logger)
        let engineTask = Task { await engine.run() }
        let authority = try MockCertificateAuthority()
        let certificate = folder.appendingPathComponent("ingress.pem").path
        let certificateKey = folder.appendingPathComponent("ingress-key.pem").path
        let ingressCA = folder.appendingPathComponent("ingress-ca.pem").path
        try authority.serverCertificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try authority.serverKeyPEM.write(toFile: certificateKey, atomically: true, encoding: .utf8)
        try authority.writeCACertificate(to: ingressCA)
        let listening = AsyncStream<Int>.makeStream()
        let ingress = try APNsIngress(
            configuration: IngressConfiguration(
                port: 0, certificateFile: certificate, privateKeyFile: certificateKey, mode: answerMode),
            store: IngressStore(client: client), apiKeys: APIKeyStore(client: client), logger: logger,
            onListening: { port in listening.continuation.yield(port) })
        let ingressTask = Task { try await ingress.run() }
        var ports = listening.stream.makeAsyncIterator()
        guard let ingressPort = await ports.next() else { throw ValidationError("the ingress did not start") }

        let direct = try await send(
            through: APNsClientConfiguration(
                endpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), connectionCount: connections,
                requestTimeout: .seconds(60), tls: TLSClientConfiguration(additionalCAFile: mockCA)),
            tokens: tokens, logger: logger)
        print(direct.line("straight to apns-mock"))
        let relayed = try await send(
            through: APNsClientConfiguration(
                endpoint: APNsEndpoint(host: "127.0.0.1", port: ingressPort), connectionCount: connections,
                requestTimeout: .seconds(60), tls: TLSClientConfiguration(additionalCAFile: ingressCA)),
            tokens: tokens, logger: logger)
        print(relayed.line("through Herald's ingress (\(mode))"))
        let logged = try await client.query(
            "SELECT count(*) FROM push_notification_logs WHERE notification_type = 'apns' AND status = 'sent'"
        ).scalar(Int.self)
        print("Herald's log: \(logged) relayed pushes recorded as sent")
        // One line for Benchmarks/run-all: what | Herald | reference | ratio | goal.
        print(
            String(
                format:
                    "result: APNs client through the ingress (%@), %d pushes | %.0f pushes/s | straight %.0f pushes/s | %.2f | ≥ 0.5",
                mode, pushes, relayed.rate, direct.rate, relayed.rate / direct.rate))
        print(
            String(
                format:
                    "ingress: %.0f pushes/s = %.2f of the client straight to the mock; added latency p50 %.1f ms, p99 %.1f ms",
                relayed.rate, relayed.rate / direct.rate, relayed.percentile(0.5) - direct.percentile(0.5),
                relayed.percentile(0.99) - direct.percentile(0.99)))

        ingressTask.cancel()
        _ = try? await ingressTask.value
        engine.shutdownGracefully()
        engineTask.cancel()
        await engineTask.value
        apnsTask.cancel()
        await apnsTask.value
        try await mock.stop()
        client.shutdown()
    }

    /// Sends `pushes` pushes to `devices` fresh tokens through a new pool of `configuration`, `inFlight` at once in batches of
    /// `batch`, and times each answer.
    private func send(
        through configuration: APNsClientConfiguration, tokens: ProviderTokenSource, logger: Logger
    ) async throws -> Measurement {
        let pool = try APNsConnectionPool(configuration: configuration, tokens: tokens, logger: logger)
        let poolTask = Task { await pool.run() }
        defer { poolTask.cancel() }
        let payload = Data(#"{"aps":{"alert":{"title":"Bench","body":"A push through Herald"}}}"#.utf8)
        let targets = (0..<min(devices, pushes)).map { _ in DeviceToken(hex: randomTokenHex())! }
        let requests = try (0..<pushes).map { index in
            try PushRequest(
                deviceToken: targets[index % targets.count], bundleID: Self.bundleID, pushType: .alert,
                payloadJSON: payload)
        }
        let batches = stride(from: 0, to: requests.count, by: batch).map {
            Array(requests[$0..<min($0 + batch, requests.count)])
        }
        let senders = max(1, min(inFlight / batch, batches.count))
        let started = ContinuousClock.now
        let tallies = await withTaskGroup(of: Measurement.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    var tally = Measurement()
                    for index in stride(from: sender, to: batches.count, by: senders) {
                        for await chunk in pool.send(batches[index]) {
                            for answer in chunk { tally.note(answer.result, answer.latency) }
                        }
                    }
                    return tally
                }
            }
            var total = Measurement()
            for await tally in group { total.merge(tally) }
            return total
        }
        var measurement = tallies
        measurement.seconds = (ContinuousClock.now - started).seconds
        return measurement
    }

    private func randomTokenHex() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

/// Answers and their latencies from one measurement.
struct Measurement: Sendable {
    var latencies: [Double] = []
    var accepted = 0
    var refused = 0
    /// Refusals by Apple's (or the transport's) words, to show what went wrong.
    var refusals: [String: Int] = [:]
    var seconds = 0.0

    var rate: Double { Double(accepted + refused) / seconds }

    mutating func note(_ result: PushResult, _ latency: Duration) {
        latencies.append(latency.seconds * 1000)
        if case .accepted = result {
            accepted += 1
        } else {
            refused += 1
            refusals["\(result)", default: 0] += 1
        }
    }

    mutating func merge(_ other: Measurement) {
        latencies += other.latencies
        accepted += other.accepted
        refused += other.refused
        refusals.merge(other.refusals, uniquingKeysWith: +)
    }

    func percentile(_ fraction: Double) -> Double {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    func line(_ path: String) -> String {
        let counts = String(
            format: "%d pushes in %.2f s = %.0f pushes/s, latency p50 %.1f ms, p99 %.1f ms (%d accepted, %d refused)",
            accepted + refused, seconds, rate, percentile(0.5), percentile(0.99), accepted, refused)
        let commonest = refusals.sorted { $0.value > $1.value }.prefix(3).map { "\($0.value)× \($0.key)" }
        return "\(path): \(counts)" + (commonest.isEmpty ? "" : "; " + commonest.joined(separator: ", "))
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
