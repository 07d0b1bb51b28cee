import APNs
import APNsCore
import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Metrics
import Postgres

/// `herald channels create | list | delete`: broadcast channels (iOS 18), made and deleted with Apple through the
/// signing key of the app's team, as a delivering process would.
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Create, list and delete broadcast channels.",
        discussion: """
            create and delete talk to Apple's channel management API with the APNS_* settings and the signing keys \
            on record; list reads the database only.
            """,
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a channel with Apple and record it.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var apns: APNsOptions
        @Option(help: "The app the channel is for.") var app: String
        @Option(help: "The APNs environment. Default: the app's.") var environment: EnvironmentArgument?
        @Option(help: "0: nothing stored; 1: the most recent broadcast kept up to 8 hours.") var storagePolicy: Int

        func run() async throws {
            guard let appID = ExternalID(app) else { throw ValidationError("--app: 1 to 128 of A-Z a-z 0-9 . _ : @ -") }
            guard let policy = MessageStoragePolicy(rawValue: storagePolicy) else {
                throw ValidationError("--storage-policy must be 0 or 1")
            }
            try await withChannels(database: database, apns: apns) { channels in
                let channel = try await channels.create(
                    app: appID, environment: environment?.environment, policy: policy, in: .everyApp)
                Console.line("created \(describe(channel))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the channels on record.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await withDatabase(database, label: "herald.channels") { client in
                for channel in try await BroadcastChannelStore(client: client).list(in: .everyApp) {
                    Console.line(describe(channel))
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel at Apple and forget it.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var apns: APNsOptions
        @Argument(help: "The channel's id in Herald, as list shows it first.") var id: String

        func run() async throws {
            guard let channelID = UUID(uuidString: id) else { throw ValidationError("the id must be a UUID") }
            try await withChannels(database: database, apns: apns) { channels in
                guard let channel = try await channels.store.channel(channelID, in: .everyApp) else {
                    throw CommandFailure("no channel has the id \(id)")
                }
                try await channels.delete(channel)
                Console.line("deleted \(id.lowercased())")
            }
        }
    }
}

private func describe(_ channel: BroadcastChannel) -> String {
    "\(channel.id.uuidString.lowercased())  apns \(channel.apnsChannelID)  app \(channel.app)  "
        + "\(channel.environment.rawValue)  storage \(channel.storagePolicy.rawValue)  "
        + "created \(channel.createdAt.formatted(.iso8601))"
}

/// Runs `body` with channels sent through the key router (each app's team key, with the fleet's provider token),
/// then stops its connections.
private func withChannels(
    database: DatabaseOptions, apns: APNsOptions, _ body: (BroadcastChannels) async throws -> Void
) async throws {
    let configuration = try HeraldConfiguration.resolve(database: database, apns: apns)
    let logger = configuration.logger(label: "herald.channels")
    let settings = try configuration.requireAPNs()
    let client = try configuration.oneSessionClient(label: "herald.channels")
    try await client.closing {
        let source = try settings.makeTokenSource(logger: logger)
        // The fleet's provider token, as every delivering process uses: a token of this process's own could make
        // Apple refuse the key's next update (TooManyProviderTokenUpdates) for the whole fleet.
        try await ProviderTokenCoordinator(store: ProviderTokenStore(client: client), source: source, logger: logger)
            .synchronize()
        let defaultClient = try settings.makeClient(tokens: source, logger: logger)
        let router = settings.makeKeyRouter(
            defaultClient: defaultClient, database: client, masterKey: configuration.masterKey,
            metrics: NOOPMetricsHandler.instance, logger: logger)
        try await router.refresh()
        let running = Task { await defaultClient.run() }
        let routing = Task { await router.run() }
        defer {
            running.cancel()
            routing.cancel()
        }
        do {
            try await body(BroadcastChannels(client: client, apns: router))
        } catch let failure as ChannelFailure {
            throw CommandFailure(failure.description)
        } catch let error as DomainError {
            throw CommandFailure(error.field.map { "\($0): \(error.message)" } ?? error.message)
        }
        running.cancel()
        routing.cancel()
        await running.value
        await routing.value
    }
}
