import Cryptography
import Foundation
import HeraldCore
import Postgres

extension GatewayBenchmark {
    struct Claims: Encodable {
        var sub: String
        var exp: Int
    }

    /// Registrations per second through Herald beside pgbench's transactions per second for the same upsert.
    struct RegistrationFigures {
        var herald: Double
        var floor: Double
        var sessions: Int

        var line: String {
            String(
                format:
                    "registrations: herald %.0f/s, pgbench same upsert %d sessions %.0f tps, ratio %.2f (goal ≥ 0.7)",
                herald, sessions, floor, herald / floor)
        }
    }

    /// The users registrations are made for, `reg-1` … `reg-10000`, as in `register.lua`: enough that each keeps
    /// fewer devices than a user may have over every round, as real users do, so a registration is what it is for
    /// almost everyone rather than the trimming of one user's thousandth device.
    static let registrants = 10_000

    /// Herald's registrations and the pgbench floor in alternating rounds of `options.seconds` each (the floor first
    /// in odd rounds, Herald first in even ones), so both meet the same table sizes and, as well as it goes on a
    /// shared machine, the same load; each figure is the median of its rounds.
    static func registrations(
        client: PostgresClient, databaseURL: String, base: String, secret: [UInt8], options: Options
    ) async throws -> RegistrationFigures {
        try await client.execute(
            """
            INSERT INTO users (external_id, email, name)
            SELECT 'reg-' || i, 'reg-' || i || '@example.com', 'Registrant ' || i
            FROM generate_series(1, \(registrants)) i
            """)
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        let tokens = try (1...registrants).map {
            try JWT.encode(Claims(sub: "reg-\($0)", exp: expiry), key: .hs256(secret: secret))
        }
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-tokens-\(UUID())")
        try tokens.joined(separator: "\n").appending("\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        let script = try registrationFloorScript()
        defer { try? FileManager.default.removeItem(at: script) }

        var herald: [Double] = []
        var floor: [Double] = []
        for round in 1...options.rounds {
            for runsFloor in round % 2 == 1 ? [true, false] : [false, true] {
                if runsFloor {
                    floor.append(
                        try await registrationFloor(
                            script: script, databaseURL: databaseURL, round: round, options: options))
                } else {
                    herald.append(
                        try await heraldRegistrations(
                            client: client, base: base, tokens: tokenFile, round: round, options: options))
                }
            }
        }
        return RegistrationFigures(herald: median(herald), floor: median(floor), sessions: options.pool)
    }

    /// wrk against `herald serve` for `options.seconds`.
    /// - Returns: successful registrations per second.
    static func heraldRegistrations(
        client: PostgresClient, base: String, tokens: URL, round: Int, options: Options
    ) async throws -> Double {
        let before = try await client.query("SELECT count(*) FROM device_tokens").scalar(Int.self)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("register.lua")
        let arguments = [
            "-t2", "-c\(options.connections)", "-d\(options.seconds)s", "--latency", "-s", script.path, base,
        ]
        print(
            "\n== round \(round), registrations: wrk \(arguments.dropLast(3).joined(separator: " ")) -s register.lua "
                + base)
        let output = try await runTool(
            "/usr/bin/wrk", arguments,
            environment: ["HERALD_BENCH_TOKENS": tokens.path, "HERALD_BENCH_ROUND": "\(round)"])
        print(output.split(separator: "\n").dropFirst(2).joined(separator: "\n"))
        let stored = try await client.query("SELECT count(*) FROM device_tokens").scalar(Int.self) - before
        print("device rows stored by herald: \(stored)")
        return try successfulRate(wrk: output)
    }

    /// wrk's requests per second, less the share answered with an error.
    static func successfulRate(wrk output: String) throws -> Double {
        func number(_ pattern: String) -> Double? {
            guard let range = output.range(of: pattern, options: .regularExpression) else { return nil }
            return Double(output[range].split(separator: " ").first { Double($0) != nil } ?? "")
        }
        guard let rate = number(#"Requests/sec: +[0-9.]+"#), let requests = number(#"[0-9]+ requests in"#) else {
            throw ToolFailure(tool: "wrk", arguments: [], status: 0, output: "unreadable output:\n\(output)")
        }
        let failed = number(#"Non-2xx or 3xx responses: [0-9]+"#) ?? 0
        return requests > 0 ? rate * (requests - failed) / requests : 0
    }

    /// The pgbench script: a registration's whole transaction for a random new token of one of the same users, with
    /// the values `register.lua` sends: the user's lock, ``DeviceStore/RegisterStatement``, the release of a moved
    /// device and the trim to the device limit, each statement Herald runs, one registration per transaction.
    static func registrationFloorScript() throws -> URL {
        let user = "('reg-' || :user)"
        let token = "lpad(to_hex(:token::int8), 64, '0')"
        typealias Parameter = DeviceStore.RegisterStatement.Parameter
        let values = [
            Parameter.user.number: user, Parameter.token.number: token, Parameter.platform.number: "'iOS'::text",
            Parameter.environment.number: "'sandbox'::text", Parameter.topic.number: "NULL::text",
            Parameter.appVersion.number: "'1.0'::text", Parameter.osVersion.number: "'18.0'::text",
            Parameter.app.number: "NULL::text",
        ]
        let lock = DeviceStore.lockRegistrations(of: [])
        let trim = DeviceStore.trimDevices(of: [], to: RegistrationLimits().devicesPerUser)
        let script = """
            \\set token random(1, 4611686018427387904)
            \\set user random(1, \(registrants))
            BEGIN;
            \(try substitute(lock.sql, [1: "\(RegistrationLimits.userLockSpace)", 2: "ARRAY[\(user)]"]));
            \(try substitute(DeviceStore.RegisterStatement.sql, values));
            \(try substitute(DeviceStore.releaseMovedDevices(tokens: []).sql, [1: "ARRAY[\(token)]"]));
            \(try substitute(trim.sql, [1: "ARRAY[\(user)]", 2: "\(RegistrationLimits().devicesPerUser)"]));
            COMMIT;

            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-\(UUID()).sql")
        try script.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// pgbench running the floor script in as many sessions as Herald's pool, for as long as wrk runs. Prepared once
    /// per session, so the database parses and plans it once: the floor is what PostgreSQL does at best.
    /// - Returns: transactions (registrations) per second.
    static func registrationFloor(script: URL, databaseURL: String, round: Int, options: Options) async throws
        -> Double
    {
        let arguments = [
            "pgbench", "-n", "-M", "prepared", "-c", "\(options.pool)", "-j", "2", "-T", "\(options.seconds)", "-f",
            script.path, databaseURL,
        ]
        print(
            "\n== round \(round), registration floor: pgbench "
                + "\(arguments.dropFirst().dropLast(3).joined(separator: " ")) -f register.sql (DeviceStore.RegisterStatement)"
        )
        let output = try await runTool("/usr/bin/env", arguments, environment: [:])
        print(
            output.split(separator: "\n").filter {
                $0.hasPrefix("number of transactions") || $0.hasPrefix("number of failed") || $0.hasPrefix("latency")
                    || $0.hasPrefix("tps")
            }.joined(separator: "\n"))
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let tps = Double(line.dropFirst(6).prefix { $0.isNumber || $0 == "." })
        else { throw ToolFailure(tool: "pgbench", arguments: arguments, status: 0, output: output) }
        return tps
    }

    /// `sql` with each `$n` replaced by `values[n]`; every parameter must have a value.
    static func substitute(_ sql: String, _ values: [Int: String]) throws -> String {
        var result = ""
        var rest = Substring(sql)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let digits = rest[rest.index(after: dollar)...].prefix { $0.isNumber }
            guard let index = Int(digits), let value = values[index] else {
                throw ToolFailure(
                    tool: "pgbench", arguments: [], status: 0, output: "no value for $\(digits) in \(sql)")
            }
            result += value
            rest = rest[digits.endIndex...]
        }
        return result + rest
    }
}
