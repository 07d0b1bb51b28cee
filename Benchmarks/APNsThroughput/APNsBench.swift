import APNs
import APNsCore
import APNsMock
import ArgumentParser
import Cryptography
import Foundation
import HeraldCore
import Logging

/// Sends N pushes over C connections to `apns-mock` (in-process, or a running one with `--port`) and
/// prints pushes per second and latency percentiles.
@main
struct APNsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-bench", abstract: "Measure Herald's APNs client against apns-mock.")

    @Option(help: "Pushes to send (after the warm-up).") var requests = 100_000
    @Option(help: "HTTP/2 connections.") var connections = 2
    @Option(help: "The most pushes awaiting an answer at once, across all connections: the send window's ceiling.")
    var inFlight = 2_000
    @Option(help: "Pushes the send window always allows, whatever the measured link.")
    var inFlightFloor = InFlightLimit.Bounds().floor
    @Option(help: "The send window over the pushes in flight at the best rate.")
    var windowHeadroom = InFlightLimit.Bounds().headroom
    @Option(help: "Pushes sent first and not measured.") var warmup = 2_000
    @Option(
        help: ArgumentHelp(
            "Pushes per batch, sent as the delivery engine sends its claimed batches (through a shared send window "
                + "that follows the measured rate and round trip); 1 sends each push on its own, in-flight at a time."))
    var batch = 500
    @Option(help: "Port of a running apns-mock; omit to start one in this process.") var port: Int?
    @Option(help: "Host of the running apns-mock.") var host = "127.0.0.1"
    @Option(help: "CA file of the running apns-mock.") var caFile: String?
    @Option(help: ".p8 key the running apns-mock trusts.") var keyFile: String?
    @Option(help: "Key id the running apns-mock trusts.") var keyID = "BENCHKEY01"
    @Option(help: "Team id the running apns-mock trusts.") var teamID = "TEAM123456"
    @Option(help: "Topic.") var bundleID = "com.example.herald"
    @Option(help: "JSON payload file (default: the seed's example payload).") var payload: String?
    @Option(help: "Write the provider token the client used to this file (so h2load can send the same one).")
    var tokenOut: String?

    static let devicePath = String(repeating: "ab", count: 32)

    func run() async throws {
        var logger = Logger(label: "apns-bench")
        logger.logLevel = .warning
        let (endpoint, trust, key, mock) = try await target()
        let payloadJSON = try payload.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? Self.seedPayload
        let tokens = ProviderTokenSource(key: key, keyID: keyID, teamID: teamID, logger: logger)
        let pool = try APNsConnectionPool(
            configuration: APNsClientConfiguration(
                endpoint: endpoint, connectionCount: connections, requestTimeout: .seconds(60),
                tls: TLSClientConfiguration(additionalCAFile: trust)),
            tokens: tokens, logger: logger)
        let runner = Task { await pool.run() }
        let token = DeviceToken(hex: Self.devicePath)!
        // Built before the clock starts, each with its own apns-id, as the delivery engine has them from its batch.
        func makeRequests(_ count: Int) throws -> [PushRequest] {
            try (0..<count).map { _ in
                try PushRequest(deviceToken: token, bundleID: bundleID, pushType: .alert, payloadJSON: payloadJSON)
            }
        }
        let bounds = InFlightLimit.Bounds(floor: inFlightFloor, ceiling: inFlight, headroom: windowHeadroom)
        _ = try await Self.send(try makeRequests(warmup), batch: batch, bounds: bounds, pool: pool)
        let measured = try makeRequests(requests)
        let started = ContinuousClock.now
        let cpuBefore = Self.processCPUSeconds()
        let (latencies, answers) = try await Self.send(measured, batch: batch, bounds: bounds, pool: pool)
        let cpu = Self.processCPUSeconds() - cpuBefore
        let elapsed = ContinuousClock.now - started
        runner.cancel()
        await runner.value
        try await mock?.stop()
        if let tokenOut { try Data(try tokens.currentToken().jwt.utf8).write(to: URL(fileURLWithPath: tokenOut)) }

        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        print(
            String(
                format: "herald client: %d pushes over %d connections in %.2f s = %.0f pushes/s; "
                    + "latency p50 %.2f ms, p99 %.2f ms; CPU %.2f µs per push; answers ",
                requests, connections, seconds, Double(requests) / seconds, percentile(0.50), percentile(0.99),
                cpu * 1e6 / Double(requests))
                + answers.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", "))
    }

    /// Sends `requests` the way the delivery engine's workers send, from `bounds.ceiling / batch` senders taking
    /// permits of one send window within `bounds`, up to `batch` pushes at a time (with `batch` 1: each push on its
    /// own, `bounds.ceiling` at a time). Returns latencies (ms) and how many answers had each HTTP status ("none" when
    /// no answer came).
    static func send(
        _ requests: [PushRequest], batch: Int, bounds: InFlightLimit.Bounds, pool: APNsConnectionPool
    ) async throws -> ([Double], [String: Int]) {
        let batch = max(1, batch)
        let senders = max(1, min(bounds.ceiling / batch, requests.count))
        let window = SendWindow(bounds: bounds)
        let queue = PushQueue(requests)
        let total = try await withThrowingTaskGroup(of: AnswerTally.self) { group in
            for _ in 0..<senders {
                group.addTask {
                    guard batch == 1 else {
                        return await sendAsTheEngine(queue, batch: batch, senders: senders, window: window, pool: pool)
                    }
                    var tally = AnswerTally()
                    while let request = queue.take(1).first {
                        let begin = ContinuousClock.now
                        tally.note(try await pool.send(request), .now - begin)
                    }
                    return tally
                }
            }
            var total = AnswerTally()
            for try await part in group { total.merge(part) }
            return total
        }
        var answers: [String: Int] = [:]
        for (slot, count) in total.counts.enumerated() where count > 0 { answers[Self.statusName(slot)] = count }
        return (total.latencies, answers)
    }

    /// User and system CPU time of the whole process so far: what a push costs, whatever else the machine runs.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// One slot per HTTP status, and slot 0 for a push that got no answer.
    static let statusSlots = 1000

    static func statusSlot(of result: PushResult) -> Int {
        switch result {
        case .accepted: 200
        case .rejected(let rejection): (100..<statusSlots).contains(rejection.status) ? rejection.status : 0
        case .failed: 0
        }
    }

    private static func statusName(_ slot: Int) -> String { slot == 0 ? "none" : "\(slot)" }

    private func target() async throws -> (APNsEndpoint, String?, P256PrivateKey, APNsMockServer?) {
        if let port {
            guard let keyFile else { throw ValidationError("--port needs --key-file (and --ca-file)") }
            return (APNsEndpoint(host: host, port: port), caFile, try P256PrivateKey(contentsOfFile: keyFile), nil)
        }
        let key = TestSigningKey.generate(keyID: keyID)
        let mock = try APNsMockServer(
            configuration: APNsMockConfiguration(
                teamID: teamID, keys: [keyID: key.publicKeyPEM], recordsRequests: false))
        try await mock.start()
        let caPath = FileManager.default.temporaryDirectory.appendingPathComponent("apns-bench-ca-\(UUID()).pem").path
        try mock.certificateAuthority.writeCACertificate(to: caPath)
        return (
            APNsEndpoint(host: "127.0.0.1", port: mock.port), caPath, try P256PrivateKey(pem: key.privateKeyPEM), mock
        )
    }

    /// Seed 004 §9.3's example payload.
    static let seedPayload = Data(
        (#"{"actionUrl":"feedbackkit://feedback/550e8400-e29b-41d4-a716-446655440000","#
            + #""aps":{"alert":{"body":"Feature request: Dark mode support","title":"New Feedback"},"#
            + #""badge":1,"mutable-content":1,"sound":"default"},"#
            + #""feedbackId":"550e8400-e29b-41d4-a716-446655440000","#
            + #""projectId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","type":"new_feedback"}"#).utf8)
}
