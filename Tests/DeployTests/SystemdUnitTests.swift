import Foundation
import Testing

/// deploy/systemd: the units run Herald as its own unprivileged user, hardened, with the key read-only.
@Suite struct SystemdUnitTests {
    static let services = ["herald.service", "herald-migrate.service", "herald-prune.service"]

    /// Settings every Herald unit must have, as systemd would read them.
    static let hardening: [(key: String, value: String)] = [
        ("User", "herald"), ("Group", "herald"), ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"), ("PrivateTmp", "yes"), ("PrivateDevices", "yes"), ("ProtectKernelTunables", "yes"),
        ("ProtectKernelModules", "yes"), ("ProtectKernelLogs", "yes"), ("ProtectControlGroups", "yes"),
        ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"), ("CapabilityBoundingSet", ""),
        ("SystemCallFilter", "@system-service"), ("EnvironmentFile", "/etc/herald/herald.env"),
    ]

    static func unit(_ name: String) throws -> SystemdUnit {
        try SystemdUnit(parsing: RepositoryFiles.text("deploy/systemd/\(name)"))
    }

    @Test(arguments: services) func isHardened(_ name: String) throws {
        let unit = try Self.unit(name)
        for (key, value) in Self.hardening {
            #expect(unit.value(key) == value, "\(name): \(key)")
        }
    }

    @Test func servesWithTheKeyReadOnlyAndStopsGracefully() throws {
        let unit = try Self.unit("herald.service")
        #expect(unit.value("ExecStart") == "/usr/local/bin/herald serve")
        #expect(unit.value("Restart") == "on-failure")
        #expect(unit.value("KillSignal") == "SIGTERM")
        let stopTimeout = try #require(unit.value("TimeoutStopSec").flatMap(ShutdownBudget.seconds))
        #expect(ShutdownBudget.covers(seconds: stopTimeout))

        // The key reaches Herald as a systemd credential: a read-only copy only this service can read.
        let credential = try #require(unit.value("LoadCredential"))
        let parts = credential.split(separator: ":", maxSplits: 1).map(String.init)
        #expect(parts.count == 2 && parts[1].hasPrefix("/"), "LoadCredential=ID:/absolute/path")
        #expect(unit.environment["APNS_KEY_PATH"] == "%d/\(parts[0])")
    }

    @Test func migratesBeforeServing() throws {
        let service = try Self.unit("herald.service")
        #expect(service.values("Requires", in: "Unit").contains("herald-migrate.service"))
        #expect(service.values("After", in: "Unit").joined(separator: " ").contains("herald-migrate.service"))
        let migrate = try Self.unit("herald-migrate.service")
        #expect(migrate.value("Type") == "oneshot")
        #expect(migrate.value("ExecStart") == "/usr/local/bin/herald migrate up")
    }

    @Test func prunesDailyOnATimer() throws {
        let prune = try Self.unit("herald-prune.service")
        #expect(prune.value("Type") == "oneshot")
        #expect(prune.value("ExecStart")?.hasPrefix("/usr/local/bin/herald prune --older-than ") == true)
        let timer = try Self.unit("herald-prune.timer")
        #expect(timer.value("OnCalendar", in: "Timer") != nil)
        #expect(timer.value("Persistent", in: "Timer") == "yes" || timer.value("Persistent", in: "Timer") == "true")
    }

    @Test(arguments: services) func commandLineIsOneHeraldAccepts(_ name: String) async throws {
        let command = try #require(try Self.unit(name).value("ExecStart"))
        let words = command.split(separator: " ").map(String.init)
        #expect(words.first == "/usr/local/bin/herald")
        let outcome = try await HeraldInvocation.run(Array(words.dropFirst()))
        #expect(outcome.reachedDatabase, "\(command): \(outcome.output)")
    }

    @Test func namesOnlyVariablesHeraldReads() throws {
        var names = Set(try Self.unit("herald.service").environment.keys)
        let example = try RepositoryFiles.text("deploy/herald.env.example")
        for line in example.split(separator: "\n") {
            // Assignments, including commented-out ones that show a default.
            if let match = line.wholeMatch(of: #/#? ?([A-Z][A-Z0-9_]*)=.*/#) { names.insert(String(match.output.1)) }
        }
        #expect(names.contains("DATABASE_URL"))
        let unknown = try HeraldVariables.unknown(names)
        #expect(unknown.isEmpty, "not read by Herald or not in \(HeraldVariables.referencePage): \(unknown)")
    }
}
