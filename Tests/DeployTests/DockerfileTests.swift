import Foundation
import Testing

/// deploy/docker/Dockerfile: a Swift build stage and a slim, non-root runtime that finds its migrations.
@Suite struct DockerfileTests {
    let stages: [[Dockerfile.Instruction]]

    init() throws {
        stages = Dockerfile(parsing: try RepositoryFiles.text("deploy/docker/Dockerfile")).stages
    }

    var runtime: [Dockerfile.Instruction] { stages.last ?? [] }

    func arguments(_ keyword: String, in stage: [Dockerfile.Instruction]) -> [String] {
        stage.filter { $0.keyword == keyword }.map(\.arguments)
    }

    @Test func buildsHeraldInReleaseWithSwift6() throws {
        #expect(stages.count == 2)
        let build = try #require(stages.first)
        #expect(build.first?.arguments.hasPrefix("swift:6.") == true)
        #expect(arguments("RUN", in: build).contains { $0.contains("swift build -c release --product herald") })
    }

    @Test func runtimeIsSlimDebianWithHeraldsLibraries() throws {
        #expect(runtime.first?.arguments == "debian:bookworm-slim")
        let installs = arguments("RUN", in: runtime).joined(separator: " ")
        for package in ["libpq5", "libnghttp2-14", "libssl3", "ca-certificates"] {
            #expect(installs.contains(" \(package)"), "\(package)")
        }
    }

    @Test func runsAsANonRootUser() throws {
        let user = try #require(arguments("USER", in: runtime).last)
        #expect(!["root", "0", "0:0"].contains(user))
    }

    @Test func listensOnAllInterfacesOnPort8080() throws {
        let environment = Dockerfile.environment(of: runtime)
        #expect(environment["HERALD_HOST"] == "0.0.0.0")
        #expect(environment["HERALD_PORT"] ?? "8080" == "8080")
        #expect(arguments("EXPOSE", in: runtime).contains("8080"))
        #expect(arguments("ENTRYPOINT", in: runtime) == [#"["/usr/local/bin/herald"]"#])
        #expect(arguments("CMD", in: runtime) == [#"["serve"]"#])
    }

    /// Herald looks for `../share/herald/migrations` beside its binary; the image puts them there and says so.
    @Test func migrationsAreWhereHeraldLooks() throws {
        let copies = arguments("COPY", in: runtime)
        #expect(copies.contains { $0.hasSuffix(" /usr/local/bin/herald") })
        #expect(copies.contains { $0.hasSuffix(" /usr/local/share/herald") })
        let besideBinary = URL(fileURLWithPath: "/usr/local/bin/herald").deletingLastPathComponent()
            .appendingPathComponent("../share/herald/migrations").standardizedFileURL.path
        #expect(Dockerfile.environment(of: runtime)["HERALD_MIGRATIONS_DIR"] == besideBinary)
        let build = stages.first ?? []
        #expect(
            arguments("RUN", in: build).contains { $0.contains("cp -R Migrations /staging/share/herald/migrations") })
    }

    @Test func namesOnlyVariablesHeraldReads() throws {
        let unknown = try HeraldVariables.unknown(Dockerfile.environment(of: runtime).keys)
        #expect(unknown.isEmpty, "not read by Herald or not in \(HeraldVariables.referencePage): \(unknown)")
    }
}
