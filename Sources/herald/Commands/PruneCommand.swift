import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Postgres

/// `herald prune --older-than 30d`: deletes old delivery logs (whole days as partitions), after moving into the log
/// any finished delivery a replica of an earlier release left in the outbox.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: "Delete delivery logs older than an age.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: ArgumentHelp("Age such as 30d, 12h or 90m (units d, h, m).", valueName: "age"))
    var olderThan: String

    func validate() throws {
        guard Self.parseAge(olderThan) != nil else {
            throw ValidationError("--older-than must be a whole number followed by d, h or m (e.g. 30d)")
        }
    }

    func run() async throws {
        let age = Self.parseAge(olderThan) ?? 0
        let client = try HeraldConfiguration.resolve(database: database).oneSessionClient(label: "herald.prune")
        let pruned = try await client.closing {
            try await DeliveryLogStore(client: client).prune(before: Date().addingTimeInterval(-age))
        }
        Console.line(
            "deleted \(pruned.logs) log rows older than \(olderThan) (\(pruned.partitionsDropped) log partitions"
                + " dropped); moved \(pruned.deliveriesMoved) finished deliveries from the outbox into the log;"
                + " deleted \(pruned.interactions) interactions with pushes sent before then")
    }

    /// Seconds in `30d`, `12h` or `90m`; nil when malformed.
    static func parseAge(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "d": return TimeInterval(count) * 86_400
        case "h": return TimeInterval(count) * 3_600
        case "m": return TimeInterval(count) * 60
        default: return nil
        }
    }
}
