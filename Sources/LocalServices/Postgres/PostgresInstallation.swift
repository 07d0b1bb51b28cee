import Foundation

/// Finds PostgreSQL's server programs (`initdb`, `pg_ctl`), which Debian keeps out of `PATH`.
enum PostgresInstallation {
    static func binDirectory() async throws -> String {
        var candidates: [String] = []
        if let configured = try? await ProcessRunner.run("/usr/bin/env", ["pg_config", "--bindir"]) {
            candidates.append(configured.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }) {
            return found
        }
        throw CommandError(
            command: "initdb", status: 127,
            output: "PostgreSQL's server programs were not found (looked in \(candidates.joined(separator: ", "))); "
                + "install them with: apt-get install -y postgresql")
    }
}
