import Foundation
import Glibc

/// Who runs PostgreSQL's programs, which refuse to run as root.
///
/// As root, commands run through `setpriv` as the `postgres` account (created by Debian's `postgresql` package)
/// or, failing that, `nobody`; otherwise they run as the current user. `setpriv` changes identity and then
/// executes the program in place, so the process started is the program itself and signals reach it directly.
struct ServiceAccount: Sendable {
    /// The account to switch to, or `nil` to run as ourselves.
    let userName: String?
    let userID: uid_t
    let groupID: gid_t

    static func current() throws -> ServiceAccount {
        guard geteuid() == 0 else { return ServiceAccount(userName: nil, userID: geteuid(), groupID: getegid()) }
        for name in ["postgres", "nobody"] {
            if let entry = getpwnam(name) {
                return ServiceAccount(userName: name, userID: entry.pointee.pw_uid, groupID: entry.pointee.pw_gid)
            }
        }
        throw CommandError(
            command: "getpwnam", status: 1,
            output: "running as root, and neither a 'postgres' nor a 'nobody' account exists to run PostgreSQL as")
    }

    /// `executable` and `arguments` as a command line that runs as this account.
    func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard userName != nil else { return (executable, arguments) }
        let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
        return (
            setpriv ?? "/usr/bin/setpriv",
            ["--reuid=\(userID)", "--regid=\(groupID)", "--init-groups", "--", executable] + arguments
        )
    }

    func run(_ executable: String, _ arguments: [String]) async throws {
        let (program, fullArguments) = command(executable, arguments)
        try await ProcessRunner.run(program, fullArguments)
    }

    /// Hands `path` to this account (no-op when we run as ourselves).
    func takeOwnership(of path: String) throws {
        guard userName != nil else { return }
        guard chown(path, userID, groupID) == 0 else {
            throw CommandError(command: "chown \(path)", status: errno, output: String(cString: strerror(errno)))
        }
    }
}
