import Foundation
import HeraldTesting
import Testing
import Yams

/// deploy/docker/compose.yaml: PostgreSQL with a health check, a one-shot migration, two Herald replicas with the
/// key as a secret.
@Suite struct ComposeTests {
    let compose: Node

    init() throws {
        compose = try #require(try RepositoryFiles.yamlDocuments("deploy/docker/compose.yaml").first)
    }

    func service(_ name: String) throws -> Node {
        try #require(compose["services"]?[name], "service \(name)")
    }

    /// The services that run the Herald image (built from the Dockerfile).
    var heraldServices: [(name: String, service: Node)] {
        (compose["services"]?.mapping ?? [:]).compactMap { name, service in
            service["build"] == nil ? nil : (name.string ?? "", service)
        }
    }

    @Test func postgresIsHealthCheckedAndKeepsItsData() throws {
        let postgres = try service("postgres")
        #expect(postgres["image"]?.string?.hasPrefix("postgres:15") == true)
        #expect(postgres["healthcheck"]?["test"]?.array().isEmpty == false)
        let volumes = postgres["volumes"]?.array().compactMap(\.string) ?? []
        let data = try #require(volumes.first { $0.hasSuffix(":/var/lib/postgresql/data") })
        let volumeName = String(data.prefix { $0 != ":" })
        #expect(compose["volumes"]?.mapping?.keys.compactMap(\.string).contains(volumeName) == true)
    }

    @Test func imageIsBuiltFromTheDockerfile() throws {
        #expect(heraldServices.count >= 2)
        for (name, service) in heraldServices {
            let context = try #require(service["build"]?["context"]?.string, "\(name): build context")
            let dockerfile = try #require(service["build"]?["dockerfile"]?.string, "\(name): dockerfile")
            let contextURL = RepositoryFiles.url("deploy/docker").appendingPathComponent(context).standardizedFileURL
            #expect(
                contextURL.path == Repository.root.standardizedFileURL.path, "\(name): context is the repository")
            #expect(FileManager.default.fileExists(atPath: contextURL.appendingPathComponent(dockerfile).path))
            #expect(service["image"]?.string == (try self.service("herald"))["image"]?.string)
        }
    }

    @Test func migrationRunsOnceAfterPostgresIsHealthy() throws {
        let migrate = try service("migrate")
        #expect(migrate["command"]?.array().compactMap(\.string) == ["migrate", "up"])
        #expect(migrate["depends_on"]?["postgres"]?["condition"]?.string == "service_healthy")
        #expect(migrate["restart"]?.string == "no")
    }

    @Test func twoReplicasStartAfterTheMigration() throws {
        let herald = try service("herald")
        #expect(herald["command"]?.array().compactMap(\.string) == ["serve"])
        #expect(herald["deploy"]?["replicas"]?.int == 2)
        #expect(herald["depends_on"]?["migrate"]?["condition"]?.string == "service_completed_successfully")
        #expect(herald["depends_on"]?["postgres"]?["condition"]?.string == "service_healthy")
        let grace = try #require(herald["stop_grace_period"]?.string.flatMap(ShutdownBudget.seconds))
        #expect(ShutdownBudget.covers(seconds: grace))
    }

    @Test func keyIsASecretFileAtAPNSKeyPath() throws {
        let herald = try service("herald")
        let secrets = herald["secrets"]?.array().compactMap(\.string) ?? []
        let keyPath = try #require(herald["environment"]?["APNS_KEY_PATH"]?.string)
        #expect(keyPath.hasPrefix("/run/secrets/"))
        let secret = String(keyPath.dropFirst("/run/secrets/".count))
        #expect(secrets.contains(secret))
        #expect(compose["secrets"]?[secret]?["file"]?.string?.isEmpty == false)
    }

    @Test func namesOnlyVariablesHeraldReads() throws {
        var names: Set<String> = []
        for (_, service) in heraldServices {
            names.formUnion(service["environment"]?.mapping?.keys.compactMap(\.string) ?? [])
        }
        #expect(names.contains("DATABASE_URL"))
        let unknown = try HeraldVariables.unknown(names)
        #expect(unknown.isEmpty, "not read by Herald or not in \(HeraldVariables.referencePage): \(unknown)")
    }

    @Test(arguments: ["migrate", "herald"]) func commandIsOneHeraldAccepts(_ name: String) async throws {
        let command = try service(name)["command"]?.array().compactMap(\.string) ?? []
        let outcome = try await HeraldInvocation.run(command)
        #expect(outcome.reachedDatabase, "\(command): \(outcome.output)")
    }
}
