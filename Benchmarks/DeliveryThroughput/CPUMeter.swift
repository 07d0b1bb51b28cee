import Foundation
import Postgres

/// CPU time spent by this process (the client, the engine and the in-process mock), by the PostgreSQL server (when it
/// runs on this machine) and by the whole machine, read from Linux's `/proc`: where a rate bound by the machine's
/// cores goes.
struct CPUMeter {
    /// Seconds of CPU so far.
    struct Reading {
        var process: Double
        /// Nil when the server runs on another machine.
        var postgres: Double?
        var machineBusy: Double
        var machineTotal: Double

        static func - (after: Reading, before: Reading) -> Reading {
            Reading(
                process: after.process - before.process,
                postgres: after.postgres.flatMap { after in before.postgres.map { after - $0 } },
                machineBusy: after.machineBusy - before.machineBusy,
                machineTotal: after.machineTotal - before.machineTotal)
        }

        /// Microseconds of CPU per unit of work for `count` units: this process's, PostgreSQL's and the whole
        /// machine's (every process and the kernel), and how busy the machine was.
        func perUnit(_ count: Int, unit: String) -> String {
            let micro = 1e6 / Double(count)
            let server = postgres.map { String(format: "PostgreSQL %.1f µs", $0 * micro) } ?? "PostgreSQL elsewhere"
            return String(
                format: "CPU per %@: this process %.1f µs, %@, the machine %.1f µs (%.0f%% busy)", unit,
                process * micro, server, machineBusy * micro, 100 * machineBusy / max(machineTotal, 1e-9))
        }
    }

    /// The server's main process, whose children are its sessions and background workers; nil when the server runs
    /// on another machine.
    private let postmaster: Int32?
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Finds the server through a session's process, whose parent is the server's main process. When no `postgres`
    /// process here has the session's process id, the server runs elsewhere.
    init(client: PostgresClient) async throws {
        let backend = try await client.query("SELECT pg_backend_pid()").scalar(Int32.self)
        let command = try? String(contentsOfFile: "/proc/\(backend)/comm", encoding: .utf8)
        postmaster = command?.hasPrefix("postgres") == true ? Self.stat(of: backend)?.parent : nil
    }

    func read() -> Reading {
        let machine = Self.machineTicks()
        return Reading(
            process: (Self.stat(of: getpid())?.ticks ?? 0) / ticksPerSecond,
            postgres: postmaster.map { Self.serverTicks(postmaster: $0) / ticksPerSecond },
            machineBusy: machine.busy / ticksPerSecond, machineTotal: machine.total / ticksPerSecond)
    }

    /// The server's ticks: its own, its live children's, and those of the children it reaped (sessions that ended).
    /// A child reaped while the children are read would be counted in neither place, or in both: they are read again
    /// (a few times at most) until the server's count of reaped ticks is the same before and after.
    private static func serverTicks(postmaster: Int32) -> Double {
        var before = stat(of: postmaster)
        var total = 0.0
        for _ in 0..<5 {
            var children = 0.0
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for name in processes {
                guard let pid = Int32(name), let child = stat(of: pid), child.parent == postmaster else { continue }
                children += child.ticks
            }
            let after = stat(of: postmaster)
            total = children + (after.map { $0.ticks + $0.reapedChildrenTicks } ?? 0)
            if before?.reapedChildrenTicks == after?.reapedChildrenTicks { break }
            before = after
        }
        return total
    }

    private struct ProcessStat {
        var parent: Int32
        var ticks: Double
        var reapedChildrenTicks: Double
    }

    /// `/proc/<pid>/stat`: the fields after the command name (which may hold spaces) start at field 3, the state.
    private static func stat(of pid: Int32) -> ProcessStat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        let number = { (index: Int) in Double(fields[index]) ?? 0 }
        // Fields 14–17: utime, stime, cutime, cstime.
        return ProcessStat(parent: parent, ticks: number(11) + number(12), reapedChildrenTicks: number(13) + number(14))
    }

    /// The first line of `/proc/stat`: user, nice, system, idle, iowait, irq, softirq, steal.
    private static func machineTicks() -> (busy: Double, total: Double) {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return (0, 0) }
        let values = line.split(separator: " ").dropFirst().prefix(8).map { Double($0) ?? 0 }
        guard values.count == 8 else { return (0, 0) }
        let idle = values[3] + values[4]
        return (values.reduce(0, +) - idle, values.reduce(0, +))
    }
}
