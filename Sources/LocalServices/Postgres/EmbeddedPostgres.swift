public import Foundation
import Glibc
import Logging
import Postgres

/// A private PostgreSQL cluster on a loopback port, for tests, `herald dev` and benchmarks.
///
/// The cluster lives in a folder of its own: `data/` (the cluster), `password` (the superuser's, generated once)
/// and `postgres.log`. The server runs as a child process of ours; a temporary cluster's folder is removed by
/// ``stop()``, a persistent one keeps its data for the next start.
public final class EmbeddedPostgres: Sendable {
    public struct Options: Sendable {
        /// Where the cluster lives; `nil` makes a temporary folder that ``EmbeddedPostgres/stop()`` deletes.
        public var directory: URL?
        /// Trades durability for speed (no fsync): right for throwaway test clusters, wrong for kept data.
        public var durable: Bool
        public var maximumConnections: Int
        /// The loopback port to listen on; `nil` picks a free one. A fixed port lets a cluster restart where its
        /// clients expect it.
        public var port: Int?

        public init(directory: URL? = nil, durable: Bool = false, maximumConnections: Int = 200, port: Int? = nil) {
            self.directory = directory
            self.durable = durable
            self.maximumConnections = maximumConnections
            self.port = port
        }
    }

    /// The superuser every cluster is created with.
    public static let superuser = "herald"

    public let directory: URL
    public let port: Int
    private let password: String
    private let isTemporary: Bool
    private let server: ServerProcess

    private init(directory: URL, port: Int, password: String, isTemporary: Bool, server: ServerProcess) {
        self.directory = directory
        self.port = port
        self.password = password
        self.isTemporary = isTemporary
        self.server = server
    }

    /// The URL of `database` on this cluster, with the superuser's credentials.
    public func url(database: String = "postgres") -> String {
        "postgres://\(Self.superuser):\(password)@127.0.0.1:\(port)/\(database)"
    }

    /// Whether the account PostgreSQL runs as can write in `directory`'s parent (as root, that account is not us:
    /// a folder under `/root` is out of its reach).
    public static func canKeepData(in directory: URL) async -> Bool {
        guard let account = try? ServiceAccount.current(), account.userName != nil else { return true }
        var parent = directory.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: parent.path) && parent.path != "/" {
            parent = parent.deletingLastPathComponent()
        }
        return (try? await account.run("/usr/bin/test", ["-x", parent.path])) != nil
    }

    /// Creates the cluster if its folder holds none, then starts it.
    public static func start(options: Options = Options()) async throws -> EmbeddedPostgres {
        let account = try ServiceAccount.current()
        let binDirectory = try await PostgresInstallation.binDirectory()
        let isTemporary = options.directory == nil
        let directory = try options.directory ?? temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try account.takeOwnership(of: directory.path)
        chmod(directory.path, 0o700)

        let password = try existingOrNewPassword(in: directory, account: account)
        let dataDirectory = directory.appendingPathComponent("data").path
        if !FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") {
            var arguments = [
                "-D", dataDirectory, "-U", superuser, "--pwfile", directory.appendingPathComponent("password").path,
                "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C",
            ]
            if !options.durable { arguments.append("--no-sync") }
            try await account.run(binDirectory + "/initdb", arguments)
        }

        var lastError: (any Error)?
        for _ in 0..<(options.port == nil ? 5 : 1) {
            let port = try options.port ?? freeLoopbackPort()
            var settings = [
                "-D", dataDirectory, "-p", "\(port)", "-c", "listen_addresses=127.0.0.1", "-c",
                "unix_socket_directories=",
                "-c", "max_connections=\(options.maximumConnections)",
            ]
            if !options.durable {
                settings += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
            }
            let (program, arguments) = account.command(binDirectory + "/postgres", settings)
            let server = try ServerProcess(
                program, arguments, logFile: directory.appendingPathComponent("postgres.log"))
            let cluster = EmbeddedPostgres(
                directory: directory, port: port, password: password, isTemporary: isTemporary, server: server)
            do {
                try await cluster.waitUntilReady()
                return cluster
            } catch {
                lastError = error
                server.signal(SIGQUIT)
                _ = await server.waitForExit()
            }
        }
        throw lastError ?? CommandError(command: "postgres", status: 1, output: "did not start")
    }

    /// Stops the server (fast shutdown: open sessions are ended) and removes a temporary cluster's folder.
    public func stop() async {
        server.signal(SIGINT)
        _ = await server.waitForExit()
        if isTemporary { try? FileManager.default.removeItem(at: directory) }
    }

    /// Stops at once, for `atexit` handlers where nothing asynchronous can run; crash recovery on the next start
    /// makes up for the skipped checkpoint.
    public func stopImmediately() {
        server.signal(SIGQUIT)
        // The folder can only go once the server stopped writing into it.
        server.waitForExitBlocking(timeout: .seconds(5))
        if isTemporary { try? FileManager.default.removeItem(at: directory) }
    }

    /// Tries to log in until the server accepts, it exits, or a minute passes.
    private func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var configuration = try PostgresConfiguration(url())
        configuration.connectTimeout = .seconds(1)
        while true {
            if let status = server.exitedStatus {
                let log =
                    (try? String(contentsOf: directory.appendingPathComponent("postgres.log"), encoding: .utf8)) ?? ""
                throw CommandError(
                    command: "postgres", status: status,
                    output: log.split(separator: "\n").suffix(5).joined(separator: "\n"))
            }
            do {
                _ = try await PostgresConnection.connect(
                    configuration: configuration, logger: Logger(label: "herald.embedded-postgres"))
                return
            } catch  where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    // MARK: Helpers

    private static func temporaryDirectory() throws -> URL {
        var template = Array("/tmp/herald-postgres-XXXXXX".utf8CString)
        guard let path = mkdtemp(&template) else {
            throw CommandError(command: "mkdtemp", status: errno, output: String(cString: strerror(errno)))
        }
        return URL(fileURLWithPath: String(cString: path))
    }

    /// The superuser's password: read from the folder when the cluster exists, else generated and saved there.
    private static func existingOrNewPassword(in directory: URL, account: ServiceAccount) throws -> String {
        let file = directory.appendingPathComponent("password")
        if let saved = try? String(contentsOf: file, encoding: .utf8) {
            return saved.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let password = (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        try password.write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o600)
        try account.takeOwnership(of: file.path)
        return password
    }
}
