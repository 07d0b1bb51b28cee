import ArgumentParser
import Cryptography
import Foundation
import HeraldCore

/// Which environments a key may sign for, as the command line names them.
enum KeyEnvironmentsArgument: String, CaseIterable, ExpressibleByArgument {
    case both, sandbox, production

    var environments: SigningKey.Environments { SigningKey.Environments(rawValue: rawValue) ?? .both }
}

/// `herald apns-keys add | list | retire`: the APNs auth keys Herald may sign provider tokens with.
struct APNsKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-keys",
        abstract: "Add, list and retire APNs signing keys (.p8).",
        discussion: """
            APNS_TEAM_ID, APNS_KEY_ID and APNS_KEY_PATH of a delivering process are recorded as an active key at \
            its start. The key's PEM stays in its file on this host; no listing shows it or its path.
            """,
        subcommands: [Add.self, List.self, Retire.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a key, or change what a known key may sign.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The Apple team the key belongs to.") var teamId: String
        @Option(help: "The key's id, as Apple shows it.") var keyId: String
        @Option(help: "The .p8 file (PKCS#8 PEM of a P-256 key), read by every process that signs with it.")
        var keyPath: String
        @Option(help: "The environments the key may sign for.") var environment: KeyEnvironmentsArgument = .both
        @Option(help: "A topic (bundle id) a topic-specific key may sign for; repeat for more. None: every topic.")
        var topic: [String] = []
        @Flag(
            help: """
                Keep the key sealed in the database (AES-256-GCM under HERALD_MASTER_KEY_FILE) instead of reading \
                the file: every delivering process then needs the master key, not the file.
                """)
        var storeInDatabase = false

        func run() async throws {
            let path = URL(fileURLWithPath: keyPath).standardizedFileURL.path
            let pem: String
            do {
                pem = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot read the key file \(path)")
            }
            guard (try? P256PrivateKey(pem: pem)) != nil else {
                throw CommandFailure("\(path) does not hold a P-256 private key in PEM (an APNs .p8 file)")
            }
            let masterKey = try MasterKeySettings.load(environment: ProcessInfo.processInfo.environment)
            if storeInDatabase, masterKey == nil {
                throw CommandFailure("--store-in-database needs \(MasterKeySettings.variable)")
            }
            try await withDatabase(database, label: "herald.apns-keys") { client in
                let definition = try SigningKeyDefinition(
                    teamID: teamId, keyID: keyId, environments: environment.environments, topics: topic)
                let store = SigningKeyStore(client: client)
                let (key, added) =
                    if storeInDatabase, let masterKey {
                        try await store.add(definition, pem: pem, masterKey: masterKey)
                    } else {
                        try await store.add(definition, keyPath: path)
                    }
                Console.line("\(added ? "added" : "updated") \(Self.describe(key))")
            }
        }

        static func describe(_ key: SigningKey) -> String {
            let topics = key.topics.isEmpty ? "every topic" : key.topics.joined(separator: ",")
            return "\(key.teamID)/\(key.keyID)  \(key.environments.rawValue)  \(topics)  \(key.storage.rawValue)  "
                + key.state.rawValue
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys (never their material).")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await withDatabase(database, label: "herald.apns-keys") { client in
                for key in try await SigningKeyStore(client: client).list() { Console.line(Add.describe(key)) }
            }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a key from signing; pushes in flight finish.",
            discussion: """
                The key is retiring for an hour, while tokens it signed may still be in use, and retired from then \
                on: revoking it at Apple can then fail no push.
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The key's id.") var keyId: String
        @Option(help: "The key's team, when several teams have a key with this id.") var teamId: String?

        func run() async throws {
            try await withDatabase(database, label: "herald.apns-keys") { client in
                let retired = try await SigningKeyStore(client: client).retire(keyID: keyId, teamID: teamId)
                guard !retired.isEmpty else { throw CommandFailure("no active key has the id \(keyId)") }
                for key in retired {
                    Console.line(
                        "retiring \(key.teamID)/\(key.keyID): it signs nothing from now on and is retired in an hour")
                }
            }
        }
    }
}
