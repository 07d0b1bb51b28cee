import Foundation
import HeraldCore
import LocalServices
import Logging
public import Postgres
import Synchronization

/// Fresh databases for tests, each a copy of one migrated template.
///
/// The server is `DATABASE_URL` when it is set, otherwise a temporary `EmbeddedPostgres` cluster started on first
/// use and stopped when the process exits. Every call returns a new database, so suites can run in parallel.
public actor TestDatabases {
    public static let shared = TestDatabases()

    /// `CREATE DATABASE` copies the template through the WAL; dozens at once kept the 2-core machine in the
    /// kernel (75% system time) while other suites' timing checks ran. A couple at a time keep up with the tests.
    private let creations = Semaphore(capacity: 2)

    private var server: Task<String, any Error>?
    private var templates: [String: Task<String, any Error>] = [:]
    private let logger = Logger(label: "herald.test-databases")

    /// The connection URL of a new, empty database.
    public func emptyDatabase() async throws -> String {
        let admin = try await serverURL()
        let name = "herald_test_\(Self.uniqueSuffix())"
        try await creations.withUnits(1) {
            try await Self.withAdminClient(admin) { try await $0.execute("CREATE DATABASE \(identifier: name)") }
        }
        return try Self.url(admin, database: name)
    }

    /// The connection URL of a new database with Herald's schema (every migration in `Migrations/`).
    public func heraldDatabase() async throws -> String {
        try await migratedDatabase(try HeraldSchema.migrations(in: Repository.migrations))
    }

    /// The connection URL of a new database with every migration in `migrations` applied.
    public func migratedDatabase(_ migrations: [Migration]) async throws -> String {
        let admin = try await serverURL()
        let template = try await templateDatabase(for: migrations, admin: admin)
        let name = "herald_test_\(Self.uniqueSuffix())"
        try await creations.withUnits(1) {
            try await Self.withAdminClient(admin) {
                try await $0.execute("CREATE DATABASE \(identifier: name) TEMPLATE \(identifier: template)")
            }
        }
        return try Self.url(admin, database: name)
    }

    // MARK: Server and template

    private func serverURL() async throws -> String {
        if let server { return try await server.value }
        let task = Task<String, any Error> {
            if let configured = ProcessInfo.processInfo.environment["DATABASE_URL"], !configured.isEmpty {
                return configured
            }
            let cluster = try await EmbeddedPostgres.start()
            SharedCluster.register(cluster)
            return cluster.url()
        }
        server = task
        return try await task.value
    }

    private func templateDatabase(for migrations: [Migration], admin: String) async throws -> String {
        let key = migrations.map { "\($0.version):\($0.checksum)" }.joined(separator: ",")
        if let template = templates[key] { return try await template.value }
        let logger = self.logger
        let task = Task<String, any Error> {
            let name = "herald_template_\(Self.uniqueSuffix())"
            try await Self.withAdminClient(admin) { try await $0.execute("CREATE DATABASE \(identifier: name)") }
            let client = PostgresClient(
                configuration: try PostgresConfiguration(try Self.url(admin, database: name)), logger: logger)
            defer { client.shutdown() }
            try await Migrator(client: client, migrations: migrations, logger: logger).up()
            return name
        }
        templates[key] = task
        return try await task.value
    }

    // MARK: Helpers

    private static func withAdminClient(
        _ url: String, _ body: (PostgresClient) async throws -> Void
    ) async throws {
        let client = PostgresClient(
            configuration: try PostgresConfiguration(url), options: .init(maximumConnections: 1),
            logger: Logger(label: "herald.test-databases"))
        defer { client.shutdown() }
        try await body(client)
    }

    private static func uniqueSuffix() -> String {
        UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16).description
    }

    /// `admin` pointing at `database` instead: the URL's path, or a trailing `dbname=` for key=value strings.
    static func url(_ admin: String, database: String) throws -> String {
        guard admin.contains("://") else { return admin + " dbname=\(database)" }
        guard var components = URLComponents(string: admin) else {
            throw PostgresError(kind: .connectionFailed, message: "DATABASE_URL is not a valid URL")
        }
        components.path = "/" + database
        return components.string ?? admin
    }
}

/// Stops the temporary cluster when the test process exits.
private enum SharedCluster {
    static let cluster = Mutex<EmbeddedPostgres?>(nil)

    static func register(_ cluster: EmbeddedPostgres) {
        Self.cluster.withLock { $0 = cluster }
        atexit { SharedCluster.cluster.withLock { $0 }?.stopImmediately() }
    }
}
