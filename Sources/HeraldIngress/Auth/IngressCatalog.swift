import Cryptography
import Foundation
import HeraldCore
import Logging

/// The apps and signing keys the ingress authorizes by, read from the database and read again when older than its
/// lifetime, or when a request names a topic or key id it lacks (at most once a second, so unknown names cannot make
/// every request read the database).
actor IngressCatalog {
    /// A key whose provider tokens the ingress takes.
    struct VerifyingKey: Sendable {
        let teamID: String
        let keyID: String
        /// Empty for a team key; else the bundle ids it may sign for.
        let topics: [String]
        let publicKey: P256PublicKey

        /// Whether this key may sign pushes to `app`: the app is its team's, and the key is not limited to other
        /// topics.
        func signs(for app: App) -> Bool {
            app.teamID == teamID && (topics.isEmpty || topics.contains(app.bundleID))
        }
    }

    /// One reading of the apps and keys.
    struct Snapshot: Sendable {
        var apps: [String: App] = [:]
        var keys: [String: [VerifyingKey]] = [:]
    }

    private let store: IngressStore
    private let masterKey: AES256GCM?
    private let lifetime: Duration
    private let logger: Logger
    private var snapshot = Snapshot()
    private var readAt: ContinuousClock.Instant?
    /// The reading under way: the requests that come meanwhile wait for it rather than take the older snapshot (the
    /// first requests found none at all).
    private var reading: Task<Snapshot, Never>?

    /// The shortest time between two readings asked for by a name the catalog lacks.
    private static let missRereadInterval = Duration.seconds(1)

    init(store: IngressStore, masterKey: AES256GCM?, lifetime: Duration, logger: Logger) {
        self.store = store
        self.masterKey = masterKey
        self.lifetime = lifetime
        self.logger = logger
    }

    /// The app whose bundle id is `bundleID`, if any.
    func app(bundleID: String) async -> App? {
        await current(lacking: { $0.apps[bundleID] == nil }).apps[bundleID]
    }

    /// The keys with id `keyID` (one per team holding it).
    func keys(id keyID: String) async -> [VerifyingKey] {
        await current(lacking: { $0.keys[keyID] == nil }).keys[keyID] ?? []
    }

    /// The snapshot, read again first when it is older than the lifetime, or when `lacking` holds of it and the last
    /// reading is a second old.
    private func current(lacking: (Snapshot) -> Bool) async -> Snapshot {
        if let reading { return await reading.value }
        let now = ContinuousClock.now
        if let readAt {
            let age = readAt.duration(to: now)
            guard age >= lifetime || (age >= Self.missRereadInterval && lacking(snapshot)) else { return snapshot }
        }
        readAt = now
        let previous = snapshot
        let task = Task {
            do {
                return try await read()
            } catch {
                logger.error(
                    "the APNs ingress cannot read the apps and signing keys", metadata: ["error": "\(error)"])
                return previous
            }
        }
        reading = task
        snapshot = await task.value
        reading = nil
        return snapshot
    }

    private func read() async throws -> Snapshot {
        var next = Snapshot()
        for app in try await store.apps() { next.apps[app.bundleID] = app }
        for (key, material) in try await store.verifyingKeys() {
            do {
                let publicKey = try P256PublicKey(
                    pem: try P256PrivateKey(pem: try material.pem(of: key, masterKey: masterKey)).publicKeyPEM)
                next.keys[key.keyID, default: []].append(
                    VerifyingKey(teamID: key.teamID, keyID: key.keyID, topics: key.topics, publicKey: publicKey))
            } catch {
                // Logged with its ids only: the error of an unreadable key never holds its material.
                logger.error(
                    "the APNs ingress cannot read signing key \(key.teamID)/\(key.keyID); its tokens are refused",
                    metadata: ["error": "\(error)"])
            }
        }
        return next
    }
}
