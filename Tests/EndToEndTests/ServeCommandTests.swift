import Foundation
import FoundationNetworking
import HeraldCore
import HeraldTesting
import LocalServices
import Logging
import Postgres
import Testing

/// `herald serve` and `herald keys` as an operator runs them: from another directory, stopped by SIGTERM.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct ServeCommandTests {
    static func request(_ method: String, _ url: String, key: String? = nil, body: String? = nil) async throws -> (
        Int, String
    ) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test(arguments: ["--delivery-lease-seconds", "--delivery-workers", "--delivery-batch-size"])
    func deliverySettingsMustBePositive(flag: String) async throws {
        let outcome = try await BuiltProgram.herald.run(["worker", flag, "0"])
        #expect(outcome.status == 64, "\(outcome.output)")
        #expect(outcome.output.contains("\(flag) must be a positive whole number"), "\(outcome.output)")
    }

    @Test func serveAnswersAndStopsGracefullyOnSIGTERM() async throws {
        let url = try await TestDatabases.shared.emptyDatabase()
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("herald-serve-\(UUID())")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }

        let server = try BuiltProgram.herald.start(
            ["serve", "--migrate", "--port", "0", "--database-url", url, "--migrations", Repository.migrations.path],
            in: elsewhere)
        let base = "http://127.0.0.1:\(try await server.servingPort())"
        #expect(try await Self.request("GET", base + "/healthz").0 == 200)
        #expect(try await Self.request("GET", base + "/readyz").0 == 200)
        let (status, document) = try await Self.request("GET", base + "/openapi.yaml")
        #expect(status == 200)
        #expect(document.hasPrefix("openapi: 3.1.0"))

        let created = try await BuiltProgram.herald.run([
            "keys", "create", "--name", "ci", "--scope", "admin", "--database-url", url,
        ])
        #expect(created.status == 0, "\(created.output)")
        let key = try #require(created.output.split(separator: "\n").first.map(String.init))
        #expect(key.hasPrefix("hk_"))
        let put = try await Self.request(
            "PUT", base + "/api/v1/users/ada", key: key, body: #"{"email":"ada@example.com","name":"Ada"}"#)
        #expect(put.0 == 201)

        let noApp = try await BuiltProgram.herald.run([
            "keys", "create", "--name", "flights", "--app", "flights", "--database-url", url,
        ])
        #expect(noApp.status != 0 && noApp.output.contains("no app has this id"), "\(noApp.output)")
        let app = try await BuiltProgram.herald.run([
            "apps", "create", "flights", "--name", "Flights", "--bundle-id", "com.example.flights",
            "--team-id", "ABCDE12345", "--database-url", url,
        ])
        #expect(app.status == 0, "\(app.output)")
        let scoped = try await BuiltProgram.herald.run([
            "keys", "create", "--name", "flights", "--scope", "admin", "--app", "flights", "--database-url", url,
        ])
        let appKey = try #require(scoped.output.split(separator: "\n").first.map(String.init), "\(scoped.output)")
        #expect(
            try await Self.request(
                "PUT", base + "/api/v1/users/bob", key: appKey, body: #"{"email":"bob@example.com","name":"Bob"}"#
            ).0 == 403)
        #expect(try await Self.request("GET", base + "/api/v1/apps/flights", key: appKey).0 == 200)

        let listed = try await BuiltProgram.herald.run(["keys", "list", "--database-url", url])
        #expect(listed.output.contains("ci") && !listed.output.contains(key))
        #expect(listed.output.contains("app flights") && !listed.output.contains(appKey))
        let revoked = try await BuiltProgram.herald.run([
            "keys", "revoke", String(key.prefix(11)), "--database-url", url,
        ])
        #expect(revoked.status == 0, "\(revoked.output)")
        #expect(try await Self.request("GET", base + "/api/v1/devices", key: key).0 == 401)

        #expect(await server.stop() == 0, "\(server.output)")
        let log = server.output
        #expect(log.contains("PUT /api/v1/users/ada 201"))
        #expect(!log.contains(key))
    }

    /// A database migrated long ago has no day partitions for today and the week ahead; `herald serve` makes them as
    /// it starts, for the log and the interactions, so rows are written into day partitions, not the default ones.
    @Test func serveMakesTheDayPartitionsAheadAtStartUp() async throws {
        let url = try await TestDatabases.shared.heraldDatabase()
        let client = PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test"))
        defer { client.shutdown() }
        let tables = PartitionedTable.all.map { LogPartitions(client: client, table: $0) }
        for partitions in tables {
            for partition in try await partitions.list() {
                try await client.execute("DROP TABLE \(identifier: partition.name)")
            }
            #expect(try await partitions.list().isEmpty)
        }

        let server = try BuiltProgram.herald.start(["serve", "--no-expand", "--port", "0", "--database-url", url])
        _ = try await server.servingPort()
        let deadline = ContinuousClock.now + .seconds(20)
        var made: [[LogPartitions.Partition]] = []
        repeat {
            made = []
            for partitions in tables { made.append(try await partitions.list()) }
            if made.allSatisfy({ $0.count == LogPartitions.daysAhead + 1 }) { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        #expect(await server.stop() == 0, "\(server.output)")
        let now = Date()
        for (table, days) in zip(PartitionedTable.all, made) {
            #expect(days.count == LogPartitions.daysAhead + 1, "\(table.name): \(server.output)")
            #expect(days.first.map { $0.start <= now && now < $0.end } == true, "today's is \(table.name)'s first")
        }
    }
}
