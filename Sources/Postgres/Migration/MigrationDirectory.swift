public import Foundation

/// Reads migrations from a folder of numbered SQL files: `0001_create_users.up.sql` with its reverse
/// `0001_create_users.down.sql`.
public enum MigrationDirectory {
    /// Loads every migration in `directory`.
    ///
    /// - Parameter checksum: digests a forward script's bytes; recorded when applied, compared on every later run.
    /// - Throws: ``MigrationError`` `.invalidFiles` for a `.sql` file that does not follow the pattern, a down script
    ///   without its up script, or a version used twice.
    public static func load(from directory: URL, checksum: (Data) -> String) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError(
                kind: .invalidFiles, fileName: directory.path, message: "cannot read the migrations folder")
        }
        var ups: [Int: (name: String, file: String)] = [:]
        var downs: [Int: (name: String, file: String)] = [:]
        for file in names.sorted() where file.hasSuffix(".sql") {
            guard let parsed = parse(file) else {
                throw MigrationError(
                    kind: .invalidFiles, fileName: file,
                    message: "is not named NNNN_description.up.sql or NNNN_description.down.sql")
            }
            if parsed.isUp {
                if let other = ups[parsed.version] {
                    throw MigrationError(
                        kind: .invalidFiles, fileName: file,
                        message: "version \(parsed.version) is also used by \(other.file)")
                }
                ups[parsed.version] = (parsed.name, file)
            } else {
                if let other = downs[parsed.version] {
                    throw MigrationError(
                        kind: .invalidFiles, fileName: file,
                        message: "version \(parsed.version) is also used by \(other.file)")
                }
                downs[parsed.version] = (parsed.name, file)
            }
        }
        if let orphan = downs.first(where: { ups[$0.key]?.name != $0.value.name }) {
            throw MigrationError(
                kind: .invalidFiles, fileName: orphan.value.file,
                message: "has no .up.sql file of the same number and name")
        }
        return try ups.keys.sorted().map { version in
            let up = ups[version]!
            let upData = try read(up.file, in: directory)
            let down = try downs[version].map {
                MigrationScript(
                    sql: String(decoding: try read($0.file, in: directory), as: UTF8.self), fileName: $0.file)
            }
            return Migration(
                version: version, name: up.name,
                up: MigrationScript(sql: String(decoding: upData, as: UTF8.self), fileName: up.file),
                down: down, checksum: checksum(upData))
        }
    }

    private static func parse(_ file: String) -> (version: Int, name: String, isUp: Bool)? {
        let isUp = file.hasSuffix(".up.sql")
        guard isUp || file.hasSuffix(".down.sql") else { return nil }
        let stem = file.dropLast(isUp ? 7 : 9)
        guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > 0 else {
            return nil
        }
        let name = stem[stem.index(after: underscore)...]
        guard !name.isEmpty else { return nil }
        return (version, String(name), isUp)
    }

    private static func read(_ file: String, in directory: URL) throws -> Data {
        do {
            return try Data(contentsOf: directory.appendingPathComponent(file))
        } catch {
            throw MigrationError(kind: .invalidFiles, fileName: file, message: "cannot be read")
        }
    }
}
