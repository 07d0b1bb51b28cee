import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Postgres

/// A key's scope as the command line names it.
enum ScopeArgument: String, CaseIterable, ExpressibleByArgument {
    case admin, send, read

    var scope: APIKeyScope {
        switch self {
        case .admin: .admin
        case .send: .send
        case .read: .read
        }
    }
}

/// `herald keys create | list | revoke`: API keys of application backends.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and revoke API keys.",
        discussion: "A key is printed once, when it is created; Herald keeps only its SHA-256.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and print it once.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "A name to recognise the key by (1 to 100 characters).") var name: String
        @Option(help: "read (logs, stats, notifications and deliveries), send (also sends) or admin (every route).")
        var scope: ScopeArgument = .send
        @Option(
            help: """
                The only app the key sees and sends for (its devices, notifications, logs and stats); \
                without it the key serves every app.
                """)
        var app: String?
        @Option(
            help: """
                The key's own limit in requests per second (bursts of twice that), 1 to 100000; without it the \
                server's HERALD_RATE_LIMIT_PER_SECOND and HERALD_RATE_LIMIT_BURST apply.
                """)
        var rateLimit: Int?

        func validate() throws {
            if let rateLimit, !APIKeyStore.rateLimits.contains(rateLimit) {
                throw ValidationError("--rate-limit must be 1 to 100000 requests a second")
            }
        }

        static func describe(_ rateLimit: Int?) -> String {
            rateLimit.map { "\($0)/s" } ?? "server default"
        }

        func run() async throws {
            let appID = try app.map { text in
                guard let id = ExternalID(text) else {
                    throw ValidationError("--app: 1 to 128 of A-Z a-z 0-9 . _ : @ -")
                }
                return id
            }
            try await withKeyStore(database) { keys in
                let created = try await keys.create(name: name, scope: scope.scope, app: appID, rateLimit: rateLimit)
                Console.line(created.secret)
                Console.line(
                    "id \(created.key.id.uuidString.lowercased())  scope \(scope.rawValue)  "
                        + "app \(appID?.rawValue ?? "every app")  rate limit \(Self.describe(rateLimit))  "
                        + "(shown only now)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never the keys themselves).")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await withKeyStore(database) { keys in
                for key in try await keys.list() {
                    let state = key.revokedAt.map { "revoked \($0.formatted(.iso8601))" } ?? "active"
                    let used = key.lastUsedAt.map { $0.formatted(.iso8601) } ?? "never"
                    Console.line(
                        "\(key.id.uuidString.lowercased())  \(key.prefix)…  \(key.scope.rawValue)  "
                            + "app \(key.appID?.rawValue ?? "every app")  rate limit \(Create.describe(key.rateLimit))  "
                            + "\(key.name)  "
                            + "created \(key.createdAt.formatted(.iso8601))  last used \(used)  \(state)")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by id or prefix.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The key's id, or its prefix as `herald keys list` shows it.") var key: String

        func run() async throws {
            try await withKeyStore(database) { keys in
                guard let revoked = try await keys.revoke(key) else { throw CommandFailure("no key matches \(key)") }
                Console.line("revoked \(revoked.id.uuidString.lowercased()) (\(revoked.name))")
            }
        }
    }
}

private func withKeyStore(_ options: DatabaseOptions, _ body: (APIKeyStore) async throws -> Void) async throws {
    let client = try HeraldConfiguration.resolve(database: options).oneSessionClient(label: "herald.keys")
    try await client.closing {
        do {
            try await body(APIKeyStore(client: client))
        } catch let error as DomainError {
            throw CommandFailure(error.message)
        }
    }
}
