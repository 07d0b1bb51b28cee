import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Postgres

/// `herald deliveries`: operator actions on the delivery engines.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries", abstract: "Act on running delivery engines.", subcommands: [Resume.self])

    /// `herald deliveries resume`: ends a pause at once, so every engine probes APNs now (say after fixing a key).
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End the sending pause of every running engine now: each probes APNs with one push.",
            discussion:
                """
                Engines pause sending when APNs refuses the signing key (403, up to 30 minutes between probes) or the \
                service (503, 429). Fix the key, team or topic, then run this instead of waiting for the next probe.
                """)

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let client = try HeraldConfiguration.resolve(database: database).oneSessionClient(
                label: "herald.deliveries")
            try await client.closing { try await DeliveryEngine.requestResume(through: client) }
            Console.line("asked every running delivery engine to resume sending")
        }
    }
}
