public import Foundation

/// Places in the source tree the tests read, found from this file rather than the working directory, so the tests
/// pass wherever `swift test` is started.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The schema as numbered SQL files.
    public static let migrations = root.appendingPathComponent("Migrations")
}
