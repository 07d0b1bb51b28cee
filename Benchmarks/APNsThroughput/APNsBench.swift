import APNs
import APNsCore
import APNsMock
import ArgumentParser
import Cryptography
import Foundation
import Logging

/// Sends N pushes over C connections to `apns-mock` (in-process, or a running one with `--port`) and
/// prints pushes per second and latency percentiles.
@main
struct APNsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-bench", abstract: "Measure Herald's APNs client against apns-mock.")

    @Option(help: "Pushes to send (after the warm-up).") var requests = 100_000
    @Option(help: "HTTP/2 connections.") var connections = 2
    @Option(help: "Pushes awaiting an answer at once, across all connections.") var inFlight = 2_000
    @Option(help: "Pushes sent first and not measured.") var warmup = 2_000
    @Option(help: "Pushes per batch, as the delivery engine hands them over; 1 sends each push on its own.")
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
        _ = try await Self.send(
            Self.batches(of: try makeRequests(warmup), size: batch), batch: batch, inFlight: inFlight, pool: pool)
        let measured = Self.batches(of: try makeRequests(requests), size: batch)
        let started = ContinuousClock.now
        let cpuBefore = Self.processCPUSeconds()
        let (latencies, answers) = try await Self.send(measured, batch: batch, inFlight: inFlight, pool: pool)
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

    /// `requests` cut into batches of `size`, before the clock starts, as the delivery engine has each batch's
    /// requests in an array of their own.
    static func batches(of requests: [PushRequest], size: Int) -> [[PushRequest]] {
        stride(from: 0, to: requests.count, by: max(1, size)).map {
            Array(requests[$0..<min($0 + max(1, size), requests.count)])
        }
    }

    /// Sends `batches` (of `batch` requests, the last maybe fewer) from concurrent senders that keep `inFlight` pushes
    /// in flight in all, each sending a batch at a time and waiting for all its answers (as the delivery engine's
    /// workers do); returns latencies (ms) and how many answers had each HTTP status ("none" when no answer came).
    static func send(
        _ batches: [[PushRequest]], batch: Int, inFlight: Int, pool: APNsConnectionPool
    ) async throws -> ([Double], [String: Int]) {
        let batch = max(1, batch)
        let count = batches.reduce(0) { $0 + $1.count }
        let senders = max(1, min(inFlight / batch, batches.count))
        return try await withThrowingTaskGroup(of: ([Double], [String: Int]).self) { group in
            for sender in 0..<senders {
                group.addTask {
                    var latencies: [Double] = []
                    latencies.reserveCapacity(count / senders + batch)
                    // Counted by status in place: naming and hashing a status for every answer showed in the profile.
                    var counts = [Int](repeating: 0, count: Self.statusSlots)
                    func note(_ result: PushResult, _ latency: Duration) {
                        latencies.append(
                            Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15)
                        counts[Self.statusSlot(of: result)] += 1
                    }
                    for index in stride(from: sender, to: batches.count, by: senders) {
                        if batch == 1 {
                            let begin = ContinuousClock.now
                            note(try await pool.send(batches[index][0]), .now - begin)
                        } else {
                            for await chunk in pool.send(batches[index]) {
                                for answer in chunk { note(answer.result, answer.latency) }
                            }
                        }
                    }
                    var answers: [String: Int] = [:]
                    for (slot, count) in counts.enumerated() where count > 0 { answers[Self.statusName(slot)] = count }
                    return (latencies, answers)
                }
            }
            var latencies: [Double] = []
            latencies.reserveCapacity(count)
            var answers: [String: Int] = [:]
            for try await (part, partAnswers) in group {
                latencies += part
                answers.merge(partAnswers, uniquingKeysWith: +)
            }
            return (latencies, answers)
        }
    }

    /// User and system CPU time of the whole process so far: what a push costs, whatever else the machine runs.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// One slot per HTTP status, and slot 0 for a push that got no answer.
    private static let statusSlots = 1000

    private static func statusSlot(of result: PushResult) -> Int {
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
