public import Foundation

/// Where one migration stands in a database.
public struct MigrationStatus: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case pending
        case applied(at: Date)
        /// Applied, but its file has changed since.
        case edited(appliedAt: Date)
        /// Recorded in the database, but no file has this version.
        case missingFile(appliedAt: Date)
    }

    public let version: Int
    public let name: String
    public let state: State
}

/// Progress of ``Migrator/up(progress:)`` and ``Migrator/down(steps:progress:)``, one event per migration.
public struct MigrationEvent: Sendable {
    public enum Direction: String, Sendable { case up, down }
    public let direction: Direction
    public let version: Int
    public let name: String
    public let duration: Duration
}
