import Cryptography
import Foundation
import FoundationNetworking
import Glibc
import HeraldCore
import LocalServices
import Logging
import Postgres
import Synchronization

// Measures Herald's gateway API against a `herald serve` process, as deployed, and beside each figure the floor
// PostgreSQL itself sets for the same work, measured in the same run on the same database:
//   1. device registrations over HTTP keep-alive with wrk: requests/s and latency percentiles; floor: Herald's own
//      registration upsert (``DeviceStore/RegisterStatement``) driven by pgbench with as many sessions as Herald's
//      database pool, for as long, in alternating rounds; medians of the rounds;
//   2. one new_feedback event to a project of N members with 2 devices each: time until 202 and time until all
//      2N delivery rows exist (the notification turns `expanded` in the transaction that inserts them); floor: a
//      bare INSERT ... SELECT of the same 2N delivery rows from the same members' devices into the same table,
//      alternating with Herald's runs; medians of the runs.
// The last lines put each figure beside its floor, with the ratio and the goal.
//
// usage: gateway-bench [--members N] [--seconds S] [--connections C] [--runs R] [--rounds N] [--pool P]
//   `herald` is taken from beside this executable (build both with -c release), wrk from /usr/bin, pgbench from PATH.
//   DATABASE_URL selects an empty database, else a private durable PostgreSQL cluster (default settings) is started.

@main
struct GatewayBenchmark {
    static func main() async throws { try await run() }

    nonisolated static func run() async throws {
        let options = Options(CommandLine.arguments.dropFirst())
        try await EmbeddedPostgres.withDatabase(
            url: ProcessInfo.processInfo.environment["DATABASE_URL"], options: .init(durable: true)
        ) { url in try await measure(databaseURL: url, options: options) }
    }

    /// Both measurements against the database at `url`.
    nonisolated static func measure(databaseURL url: String, options: Options) async throws {
        var logger = Logger(label: "herald.bench")
        logger.logLevel = .warning
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: logger)
        defer { client.shutdown() }
        let migrations = try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!)
        try await Migrator(client: client, migrations: migrations, logger: logger).up()
        try await printSettings(client)

        let secret = Base64URL.encode(SecureRandom.bytes(count: 32))
        // Registrations spread over 10,000 users stay far below each user's rate limit (50 a second), which is
        // left as it is.
        let server = try await HeraldProcess.start(
            databaseURL: url, poolSize: options.pool, environment: ["HERALD_USER_JWT_SECRET": secret])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        print(
            "herald serve on \(base), default settings but --database-pool-size \(options.pool) and no rate limit "
                + "to speak of, request log at info")

        let registrations = try await registrations(
            client: client, databaseURL: url, base: base, secret: Array(secret.utf8), options: options)
        let fanOut = try await fanOut(client: client, base: base, options: options)
        server.stop()

        print("\n== against the floors (same run, same database)")
        print(registrations.line)
        if let fanOut { print(fanOut.line) }
    }

    struct Options {
        var members = 10_000
        var seconds = 10
        var connections = 64
        var runs = 5
        /// Alternating rounds of wrk and pgbench, `seconds` each.
        var rounds = 3
        /// Herald's database pool, and so pgbench's sessions.
        var pool = 16

        init(_ arguments: ArraySlice<String>) {
            var iterator = arguments.makeIterator()
            while let flag = iterator.next() {
                let value = iterator.next().flatMap(Int.init)
                switch flag {
                case "--members": members = value ?? members
                case "--seconds": seconds = value ?? seconds
                case "--connections": connections = value ?? connections
                case "--runs": runs = value ?? runs
                case "--rounds": rounds = value ?? rounds
                case "--pool": pool = value ?? pool
                default: print("ignoring \(flag)")
                }
            }
        }
    }

    static func printSettings(_ client: PostgresClient) async throws {
        let settings = try await client.query(
            """
            SELECT name || '=' || setting || coalesce(unit, '') FROM pg_settings
            WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'wal_level',
                           'max_wal_size', 'work_mem', 'max_connections', 'checkpoint_timeout')
            ORDER BY name
            """
        ).decode(String.self)
        let version = try await client.query("SHOW server_version").scalar(String.self)
        print("PostgreSQL \(version): \(settings.joined(separator: ", "))")
    }

    static func extractID(_ text: String) -> UUID? {
        guard let range = text.range(of: #"[0-9a-f-]{36}"#, options: .regularExpression) else { return nil }
        return UUID(uuidString: String(text[range]))
    }

    static func post(_ url: String, key: String?, body: String?) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = body == nil ? "GET" : "POST"
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    static func median<Value: Comparable>(_ values: [Value]) -> Value { values.sorted()[values.count / 2] }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func format(_ duration: Duration) -> String {
        String(format: "%.1f ms", milliseconds(duration))
    }

    static func runTool(_ path: String, _ arguments: [String], environment: [String: String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try runUnblocked(process) } catch { continuation.resume(throwing: error) }
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else { throw ToolFailure(tool: path, arguments: arguments, status: status, output: output) }
        return output
    }
}

/// Starts `process` with no signal blocked. A child inherits the signal mask of the thread that starts it, and the
/// threads tasks run on block most signals, SIGALRM among them: pgbench ends `-T` with an alarm, so it would never
/// stop.
func runUnblocked(_ process: Process) throws {
    var none = sigset_t()
    sigemptyset(&none)
    var previous = sigset_t()
    // pthread_sigmask fails only for an invalid `how`: "EINVAL The value specified in how was invalid."
    precondition(pthread_sigmask(SIG_SETMASK, &none, &previous) == 0, "pthread_sigmask refused SIG_SETMASK")
    defer { precondition(pthread_sigmask(SIG_SETMASK, &previous, nil) == 0, "pthread_sigmask refused SIG_SETMASK") }
    try process.run()
}

struct ToolFailure: Error, CustomStringConvertible {
    let tool: String
    let arguments: [String]
    let status: Int32
    let output: String

    var description: String { "\(tool) \(arguments.joined(separator: " ")) exited with \(status):\n\(output)" }
}
