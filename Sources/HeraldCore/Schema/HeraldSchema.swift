import Cryptography
public import Foundation
public import Postgres

/// Herald's database schema: the numbered SQL files of the repository's `Migrations/` folder.
public enum HeraldSchema {
    /// Loads the migrations, each with the SHA-256 of its forward script as checksum.
    public static func migrations(in directory: URL) throws -> [Migration] {
        try MigrationDirectory.load(from: directory) { SHA256.hexDigest($0) }
    }

    /// Where to look for `Migrations/` when no folder is configured: the working directory, then
    /// `share/herald/migrations` beside the installed binary, then the source tree this binary was built from.
    public static func defaultDirectory(
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        executable: URL = ShippedFile.runningExecutable
    ) -> URL? {
        ShippedFile.locate(
            "Migrations", installedName: "migrations", isFolder: true, workingDirectory: workingDirectory,
            executable: executable)
    }
}
