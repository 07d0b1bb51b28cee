import Foundation
public import Logging

/// Applies and reverts ``Migration``s, recording them in `schema_migrations`.
///
/// Every run holds a session-level advisory lock, so processes that migrate at the same time take turns and each
/// migration is applied once. Each script runs in its own transaction unless it opts out.
public struct Migrator: Sendable {
    /// The advisory lock key shared by every Herald process ("herald" in ASCII).
    static let lockKey: Int64 = 0x68_6572_616C_64

    private let client: PostgresClient
    private let migrations: [Migration]
    private let logger: Logger

    /// - Throws: ``MigrationError`` `.invalidFiles` when two migrations share a version.
    public init(client: PostgresClient, migrations: [Migration], logger: Logger) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw MigrationError(
                kind: .invalidFiles, fileName: next.up.fileName,
                message: "version \(next.version) is also used by \(previous.up.fileName)")
        }
        self.client = client
        self.migrations = sorted
        self.logger = logger
    }

    /// Every known or recorded migration, by version.
    public func status() async throws -> [MigrationStatus] {
        try await withMigrationLock { connection in
            let applied = try await appliedMigrations(connection)
            var statuses: [MigrationStatus] = migrations.map { migration in
                guard let record = applied[migration.version] else {
                    return MigrationStatus(version: migration.version, name: migration.name, state: .pending)
                }
                let state: MigrationStatus.State =
                    record.checksum == migration.checksum
                    ? .applied(at: record.appliedAt) : .edited(appliedAt: record.appliedAt)
                return MigrationStatus(version: migration.version, name: migration.name, state: state)
            }
            let known = Set(migrations.map(\.version))
            for (version, record) in applied where !known.contains(version) {
                statuses.append(
                    MigrationStatus(
                        version: version, name: record.name, state: .missingFile(appliedAt: record.appliedAt)))
            }
            return statuses.sorted { $0.version < $1.version }
        }
    }

    /// Applies every pending migration in version order.
    ///
    /// - Returns: the migrations applied by this call (empty when the database was up to date).
    /// - Throws: ``MigrationError`` `.edited` before applying anything if an applied file changed, `.scriptFailed`
    ///   naming the file and line when a script fails.
    @discardableResult
    public func up(progress: @Sendable (MigrationEvent) -> Void = { _ in }) async throws -> [Migration] {
        try await withMigrationLock { connection in
            let applied = try await appliedMigrations(connection)
            for migration in migrations {
                if let record = applied[migration.version], record.checksum != migration.checksum {
                    throw MigrationError(
                        kind: .edited, fileName: migration.up.fileName,
                        message: "was changed after it was applied on \(record.appliedAt); restore the file and add "
                            + "a new migration for the change instead")
                }
            }
            let pending = migrations.filter { applied[$0.version] == nil }
            for migration in pending {
                let duration = try await run(migration.up, on: connection) { connection in
                    try await connection.execute(
                        """
                        INSERT INTO schema_migrations (version, name, checksum)
                        VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                        """)
                }
                progress(
                    MigrationEvent(direction: .up, version: migration.version, name: migration.name, duration: duration)
                )
            }
            return pending
        }
    }

    /// Reverts the `steps` most recently applied migrations, newest first.
    ///
    /// - Returns: the migrations reverted.
    @discardableResult
    public func down(steps: Int = 1, progress: @Sendable (MigrationEvent) -> Void = { _ in }) async throws
        -> [Migration]
    {
        try await withMigrationLock { connection in
            let applied = try await appliedMigrations(connection)
            let targets = applied.keys.sorted(by: >).prefix(max(steps, 0))
            var reverted: [Migration] = []
            for version in targets {
                guard let migration = migrations.first(where: { $0.version == version }), let down = migration.down
                else {
                    let name = applied[version].map { "\(version) (\($0.name))" } ?? "\(version)"
                    throw MigrationError(
                        kind: .irreversible, fileName: "migration \(name)",
                        message: "has no down script here; it cannot be reverted")
                }
                let duration = try await run(down, on: connection) { connection in
                    try await connection.execute("DELETE FROM schema_migrations WHERE version = \(version)")
                }
                progress(MigrationEvent(direction: .down, version: version, name: migration.name, duration: duration))
                reverted.append(migration)
            }
            return reverted
        }
    }

    // MARK: Helpers

    private struct AppliedRecord {
        let name: String
        let checksum: String
        let appliedAt: Date
    }

    /// Runs `body` on one session holding the migration lock, creating `schema_migrations` first if needed.
    private func withMigrationLock<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await acquireMigrationLock(connection)
            let result: Result<T, any Error>
            do {
                try await connection.executeScript(
                    unsafeSQL: """
                        CREATE TABLE IF NOT EXISTS schema_migrations (
                            version bigint PRIMARY KEY,
                            name text NOT NULL,
                            checksum text NOT NULL,
                            applied_at timestamptz NOT NULL DEFAULT now()
                        )
                        """)
                result = .success(try await body(connection))
            } catch {
                result = .failure(error)
            }
            do {
                try await connection.execute("SELECT pg_advisory_unlock(\(Self.lockKey))")
            } catch {
                // The session lock also ends with the session, which the pool drops when it broke; the error that
                // stopped the migration is the one to report.
                guard case .failure = result else { throw error }
                logger.debug("advisory unlock failed", metadata: ["postgres.error": "\(error)"])
            }
            return try result.get()
        }
    }

    /// Takes the advisory lock, polling with `pg_try_advisory_lock` rather than blocking in `pg_advisory_lock`:
    /// a session blocked in a statement holds a snapshot, and `CREATE INDEX CONCURRENTLY` in the lock holder's
    /// migration would wait for that snapshot forever — a deadlock between the two processes.
    private func acquireMigrationLock(_ connection: PostgresConnection) async throws {
        var delay: Duration = .milliseconds(20)
        var waited = false
        while try await !connection.query("SELECT pg_try_advisory_lock(\(Self.lockKey))").scalar(Bool.self) {
            if !waited {
                logger.info("another process is migrating this database; waiting for it to finish")
                waited = true
            }
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .milliseconds(500))
        }
    }

    private func appliedMigrations(_ connection: PostgresConnection) async throws -> [Int: AppliedRecord] {
        let rows = try await connection.query("SELECT version, name, checksum, applied_at FROM schema_migrations")
        var applied: [Int: AppliedRecord] = [:]
        for row in rows {
            let (version, name, checksum, appliedAt) = try row.decode((Int, String, String, Date).self)
            applied[version] = AppliedRecord(name: name, checksum: checksum, appliedAt: appliedAt)
        }
        return applied
    }

    /// Runs `script` then `record`, together in one transaction unless the script opts out.
    private func run(
        _ script: MigrationScript, on connection: PostgresConnection,
        record: @escaping (PostgresConnection) async throws -> Void
    ) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        logger.debug("running migration script", metadata: ["migration.file": "\(script.fileName)"])
        do {
            if script.runsInTransaction {
                try await connection.withTransaction { connection in
                    try await connection.executeScript(unsafeSQL: script.sql)
                    try await record(connection)
                }
            } else {
                try await connection.executeScript(unsafeSQL: script.sql)
                try await record(connection)
            }
        } catch let error as PostgresError {
            throw MigrationError(
                kind: .scriptFailed, fileName: script.fileName,
                line: error.position.map { script.line(atCharacter: $0) },
                message: error.kind == .server ? "\(error.description): \(error.message)" : error.description)
        }
        return clock.now - start
    }
}
