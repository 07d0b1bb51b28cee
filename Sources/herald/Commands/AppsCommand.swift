import ArgumentParser
import Foundation
import HeraldCore
import Postgres

/// An APNs environment as the command line names it.
enum EnvironmentArgument: String, CaseIterable, ExpressibleByArgument {
    case sandbox, production

    var environment: PushEnvironment { self == .production ? .production : .sandbox }
}

/// `herald apps create | list | delete`: the backend's apps, each a bundle id on an Apple team.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Create, list and delete the apps Herald serves.",
        discussion: """
            The APNS_BUNDLE_ID of a delivering process is the default app, defined at its start; devices that name \
            no app belong to it.
            """,
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app, or update the one with this id.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The app's id, the backend's own (1 to 128 of A-Z a-z 0-9 . _ : @ -).") var id: String
        @Option(help: "The app's bundle id, which is its APNs topic.") var bundleId: String
        @Option(help: "The Apple team the app belongs to.") var teamId: String
        @Option(help: "A name to recognise the app by. Default: the bundle id.") var name: String?
        @Option(help: "The APNs environment of devices that name none.") var environment: EnvironmentArgument =
            .production
        @Option(help: "The app's part of sending while other apps have work too, relative to theirs (1 to 1000).")
        var deliveryWeight = 1

        func run() async throws {
            guard let appID = ExternalID(id) else {
                throw CommandFailure("the app id must be 1 to 128 of A-Z a-z 0-9 . _ : @ -")
            }
            try await withDatabase(database, label: "herald.apps") { client in
                let definition = try AppDefinition(
                    name: name ?? bundleId, bundleID: bundleId, teamID: teamId,
                    defaultEnvironment: environment.environment, deliveryWeight: deliveryWeight)
                let (app, created) = try await AppStore(client: client).put(appID, definition)
                Console.line("\(created ? "created" : "updated") \(Self.describe(app))")
            }
        }

        static func describe(_ app: App) -> String {
            "\(app.externalID)  \(app.bundleID)  team \(app.teamID)  \(app.defaultEnvironment.rawValue)"
                + "  weight \(app.deliveryWeight)" + (app.isDefault ? "  (default)" : "") + "  \(app.name)"
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await withDatabase(database, label: "herald.apps") { client in
                for app in try await AppStore(client: client).list() { Console.line(Create.describe(app)) }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an app and its devices.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The app's id.") var id: String

        func run() async throws {
            guard let appID = ExternalID(id) else { throw CommandFailure("no app has the id \(id)") }
            try await withDatabase(database, label: "herald.apps") { client in
                guard try await AppStore(client: client).delete(appID) else {
                    throw CommandFailure("no app has the id \(id)")
                }
                Console.line("deleted \(id)")
            }
        }
    }
}

/// Runs `body` with a one-session client of the configured database; a domain refusal becomes the command's error.
func withDatabase(_ options: DatabaseOptions, label: String, _ body: (PostgresClient) async throws -> Void)
    async throws
{
    let client = try HeraldConfiguration.resolve(database: options).oneSessionClient(label: label)
    try await client.closing {
        do {
            try await body(client)
        } catch let error as DomainError {
            throw CommandFailure(error.field.map { "\($0): \(error.message)" } ?? error.message)
        }
    }
}
