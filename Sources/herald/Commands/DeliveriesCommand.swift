import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Postgres

/// `herald deliveries`: operator actions on the delivery engines.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries", abstract: "Act on running delivery engines.", subcommands: [Resume.self])

    /// `herald deliveries resume`: resumes sending after APNs refused the credentials.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resume sending in every running engine after a credential pause.",
            discussion:
                "Engines pause a signing key when APNs refuses it (403). Fix the key, team or topic, then run this.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let client = try HeraldConfiguration.resolve(database: database).oneSessionClient(
                label: "herald.deliveries")
            try await client.closing {
                try await client.query(
                    "SELECT pg_notify(\(HeraldChannel.deliveryControl), \(DeliveryEngine.resumeMessage))")
            }
            Console.line("asked every running delivery engine to resume sending")
        }
    }
}
