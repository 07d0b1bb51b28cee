import Cryptography
import Foundation
import Glibc
import LocalServices

/// The folder `herald dev` keeps its state in, so a restart carries on where the last run stopped:
/// `postgres/` (the private cluster), `apns/` (the mock's signing key and CA certificate) and `user-jwt-secret`.
struct DevDataFolder {
    let root: URL

    /// Creates the folder if needed.
    init(path: String) throws {
        root = URL(fileURLWithPath: path).standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Where PostgreSQL's cluster lives: `postgres/`, unless PostgreSQL's account cannot reach it.
    /// - Throws: ``CommandFailure`` when the fallback under `/var/tmp/herald-dev` is not safe to use.
    func postgresDirectory() async throws -> URL {
        let directory = root.appendingPathComponent("postgres")
        guard !(await EmbeddedPostgres.canKeepData(in: directory)) else { return directory }
        // As root, PostgreSQL runs as an unprivileged account that cannot enter folders such as /root. /var/tmp is
        // open to every user, so the shared folder must be root's alone before root chowns anything in it.
        let shared = "/var/tmp/herald-dev"
        try OwnedFolder.prepare(shared)
        let fallback = URL(fileURLWithPath: shared)
            .appendingPathComponent(directory.path.replacingOccurrences(of: "/", with: "_"))
        try OwnedFolder.requireNoLink(fallback.path)
        Console.line("PostgreSQL's account cannot reach \(directory.path); keeping its data in \(fallback.path)")
        return fallback
    }

    /// The mock's folder, readable by this account only: it holds a private key.
    func apnsDirectory() throws -> URL {
        let directory = root.appendingPathComponent("apns")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory
    }

    /// The HS256 secret user tokens are signed with: read back, or made and saved (mode 0600) on the first run,
    /// so tokens printed earlier stay valid.
    func userTokenSecret() throws -> String {
        let file = root.appendingPathComponent("user-jwt-secret")
        if let saved = try? String(contentsOf: file, encoding: .utf8) {
            let secret = saved.trimmingCharacters(in: .whitespacesAndNewlines)
            if !secret.isEmpty { return secret }
        }
        let secret = Base64URL.encode(SecureRandom.bytes(count: 32))
        try Self.writePrivately(Data((secret + "\n").utf8), to: file)
        return secret
    }

    /// Writes `data` to a file only this account can read, from its first byte on.
    static func writePrivately(_ data: Data, to file: URL) throws {
        try? FileManager.default.removeItem(at: file)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot write \(file.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: data)
        try handle.close()
    }
}
