import Cryptography
import Foundation
import FoundationNetworking
import HeraldCore
import LocalServices
import Logging
import Postgres
import Synchronization

// Measures Herald's gateway API against a `herald serve` process, as deployed:
//   1. device registrations over HTTP keep-alive with wrk: requests/s and latency percentiles;
//   2. one new_feedback event to a project of N members with 2 devices each: time until 202 and time until all
//      2N delivery rows exist (the notification turns `expanded` in the transaction that inserts them).
//
// usage: gateway-bench [--members N] [--seconds S] [--connections C] [--runs R]
//   `herald` is taken from beside this executable (build both with -c release); DATABASE_URL selects an empty
//   database, else a private durable PostgreSQL cluster (default settings) is started.

@main
struct GatewayBenchmark {
    static func main() async throws { try await run() }

    nonisolated static func run() async throws {
        let options = Options(CommandLine.arguments.dropFirst())
        var logger = Logger(label: "herald.bench")
        logger.logLevel = .warning

        let cluster: EmbeddedPostgres? =
            ProcessInfo.processInfo.environment["DATABASE_URL"] == nil
            ? try await EmbeddedPostgres.start(options: .init(durable: true)) : nil
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? cluster!.url()
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: logger)
        defer { client.shutdown() }
        let migrations = try HeraldSchema.migrations(in: HeraldSchema.defaultDirectory()!)
        try await Migrator(client: client, migrations: migrations, logger: logger).up()
        try await printSettings(client)

        let secret = Base64URL.encode(SecureRandom.bytes(count: 32))
        let server = try await HeraldProcess.start(databaseURL: url, environment: ["HERALD_USER_JWT_SECRET": secret])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        print("herald serve on \(base), default settings (database pool 16 sessions, request log at info)")

        try await registrations(client: client, base: base, secret: Array(secret.utf8), options: options)
        try await fanOut(client: client, base: base, options: options)
        server.stop()
        await cluster?.stop()
    }

    struct Options {
        var members = 10_000
        var seconds = 10
        var connections = 64
        var runs = 5

        init(_ arguments: ArraySlice<String>) {
            var iterator = arguments.makeIterator()
            while let flag = iterator.next() {
                let value = iterator.next().flatMap(Int.init)
                switch flag {
                case "--members": members = value ?? members
                case "--seconds": seconds = value ?? seconds
                case "--connections": connections = value ?? connections
                case "--runs": runs = value ?? runs
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

    // MARK: Registrations

    struct Claims: Encodable {
        var sub: String
        var exp: Int
    }

    static func registrations(client: PostgresClient, base: String, secret: [UInt8], options: Options) async throws {
        let users = 64
        try await client.execute(
            """
            INSERT INTO users (external_id, email, name)
            SELECT 'reg-' || i, 'reg-' || i || '@example.com', 'Registrant ' || i FROM generate_series(1, \(users)) i
            """)
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        let tokens = try (1...users).map {
            try JWT.encode(Claims(sub: "reg-\($0)", exp: expiry), key: .hs256(secret: secret))
        }
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-tokens-\(UUID())")
        try tokens.joined(separator: "\n").appending("\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("register.lua")
        let arguments = [
            "-t2", "-c\(options.connections)", "-d\(options.seconds)s", "--latency", "-s", script.path, base,
        ]
        print("\n== registrations: wrk \(arguments.dropLast(3).joined(separator: " ")) -s register.lua \(base)")
        let output = try await runTool("/usr/bin/wrk", arguments, environment: ["HERALD_BENCH_TOKENS": tokenFile.path])
        print(output)
        let stored = try await client.query("SELECT count(*) FROM device_tokens").scalar(Int.self)
        print("device rows stored: \(stored)")
    }

    // MARK: Fan-out

    static func fanOut(client: PostgresClient, base: String, options: Options) async throws {
        print("\n== fan-out: new_feedback to a project of \(options.members) members with 2 devices each")
        let seeding = ContinuousClock.now
        try await client.withTransaction { connection in
            try await connection.execute(
                "INSERT INTO users (external_id, email, name) VALUES ('fan-owner', 'fan-owner@example.com', 'Owner')")
            try await connection.execute(
                """
                INSERT INTO users (external_id, email, name)
                SELECT 'fan-' || i, 'fan-' || i || '@example.com', 'Member ' || i
                FROM generate_series(1, \(options.members)) i
                """)
            try await connection.execute(
                """
                INSERT INTO projects (external_id, name, owner_id)
                SELECT 'fan-project', 'Fan-out', id FROM users WHERE external_id = 'fan-owner'
                """)
            try await connection.execute(
                """
                INSERT INTO project_members (project_id, user_id)
                SELECT p.id, u.id FROM projects p, users u
                WHERE p.external_id = 'fan-project' AND u.external_id LIKE 'fan-%' AND u.external_id <> 'fan-owner'
                """)
            try await connection.execute(
                """
                INSERT INTO device_tokens (user_id, token, platform, environment)
                SELECT u.id, md5(u.id::text || d) || md5(d || u.id::text), 'iOS', 'sandbox'
                FROM users u, generate_series(1, 2) d
                WHERE u.external_id LIKE 'fan-%' AND u.external_id <> 'fan-owner'
                """)
        }
        try await client.execute("ANALYZE")
        print("seeded in \(format(seeding.duration(to: .now)))")
        let key = try await APIKeyStore(client: client).create(name: "bench", scope: .send).secret
        _ = try await post(base + "/healthz", key: nil, body: nil)

        var accepts: [Duration] = []
        var expansions: [Duration] = []
        for run in 1...options.runs {
            let body = """
                {"type":"new_feedback","projectId":"fan-project","actorId":"fan-owner",\
                "feedback":{"id":"fb-\(run)","title":"Dark mode, run \(run)"}}
                """
            let start = ContinuousClock.now
            let (status, text) = try await post(base + "/api/v1/events", key: key, body: body)
            let accepted = ContinuousClock.now
            guard status == 202, let id = extractID(text) else {
                print("unexpected answer \(status): \(text)")
                return
            }
            while try await client.query("SELECT state FROM notifications WHERE id = \(id)").scalar(String.self)
                != "expanded"
            {
                try await Task.sleep(for: .milliseconds(1))
            }
            let expanded = ContinuousClock.now
            let rows = try await client.query(
                "SELECT count(*) FROM deliveries WHERE notification_id = \(id)"
            ).scalar(Int.self)
            accepts.append(start.duration(to: accepted))
            expansions.append(start.duration(to: expanded))
            print(
                "run \(run): 202 after \(format(start.duration(to: accepted))), \(rows) delivery rows after "
                    + "\(format(start.duration(to: expanded))) (from the request's start)")
        }
        print(
            "median: 202 after \(format(median(accepts))), all delivery rows after \(format(median(expansions)))")
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

    static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

    static func format(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", milliseconds)
    }

    static func runTool(_ path: String, _ arguments: [String], environment: [String: String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let _: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
