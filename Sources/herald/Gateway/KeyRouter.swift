import APNs
import APNsCore
import CoreMetrics
import Cryptography
import Foundation
import HeraldCore
import Logging
import Postgres
import Synchronization

/// Sends each push with a signing key of its app's team that may sign for its topic and environment: the apps and
/// keys on record (refreshed every few seconds), each key with its own APNs client and fleet-shared provider token,
/// made on first use. A key Apple refuses (`InvalidProviderToken`, `UnrelatedKeyIdInToken`,
/// `BadEnvironmentKeyIdInToken`) is paused alone and the push goes out with the team's next key; when the last key
/// is refused too, the refusal reaches the engine, which pauses sending as a whole. A push no key may sign fails as
/// `noSigningKey`, which retries that delivery later without holding up other apps.
///
/// A key's connections close once nothing has been sent with it for `keyIdleLifetime`, and, when the key is
/// retired, as soon as the pushes in flight on them have their answers; its token renewal stops at once.
final class KeyRouter: APNsTransport {
    struct KeyRef: Hashable, Sendable, CustomStringConvertible {
        let teamID: String
        let keyID: String
        var description: String { "\(teamID)/\(keyID)" }
    }

    private struct Route {
        let key: SigningKey
        let material: SigningKeyStore.Material
        var ref: KeyRef { KeyRef(teamID: key.teamID, keyID: key.keyID) }
    }

    /// A key's client while it is open: made on first use, its connections and token renewal running, and how
    /// many sends are using it.
    private struct KeyClient {
        let making: Task<APNsClient?, Never>
        var connections: Task<Void, Never>?
        var renewal: Task<Void, Never>?
        var inFlight = 0
        var lastUsed: ContinuousClock.Instant

        func stop() {
            connections?.cancel()
            renewal?.cancel()
        }
    }

    private struct State {
        var loaded = false
        /// Bundle id → team, from the apps on record.
        var teams: [String: String] = [:]
        var routes: [Route] = []
        var clients: [KeyRef: KeyClient] = [:]
        var pausedUntil: [KeyRef: ContinuousClock.Instant] = [:]
    }

    static let refreshInterval = Duration.seconds(5)
    static let keyPause = Duration.seconds(60)

    private let defaultClient: APNsClient
    private let defaultKey: KeyRef
    private let settings: APNsSettings
    private let database: PostgresClient
    private let logger: Logger
    private let metrics: any MetricsFactory
    private let masterKey: AES256GCM?
    private let state = Mutex(State())

    init(
        defaultClient: APNsClient, settings: APNsSettings, database: PostgresClient, masterKey: AES256GCM?,
        metrics: any MetricsFactory, logger: Logger
    ) {
        self.masterKey = masterKey
        self.defaultClient = defaultClient
        defaultKey = KeyRef(teamID: settings.teamID, keyID: settings.keyID)
        self.settings = settings
        self.database = database
        self.metrics = metrics
        self.logger = logger
    }

    /// `herald_apns_key_paused{key="TEAM/KEY"}`: 1 while the router holds a refused or unusable key back.
    private func pausedGauge(_ key: KeyRef) -> Gauge {
        Gauge(label: "herald_apns_key_paused", dimensions: [("key", key.description)], factory: metrics)
    }

    /// Reads the apps and active keys; until the first read succeeds every push goes out with the default key.
    func refresh() async throws {
        let apps = try await AppStore(client: database).list()
        let store = SigningKeyStore(client: database)
        let keys = try await store.activeKeys()
        state.withLock { state in
            state.teams = Dictionary(apps.map { ($0.bundleID, $0.teamID) }, uniquingKeysWith: { first, _ in first })
            state.routes = keys.map { Route(key: $0.key, material: $0.material) }
            state.loaded = true
        }
        for key in try await store.settleRetirements() {
            logger.notice(
                """
                signing key \(key.teamID)/\(key.keyID) is retired: no token it signed is still valid, so revoking it \
                at Apple cannot fail a push
                """,
                metadata: ["herald.apns.key_id": "\(key.keyID)", "herald.apns.team_id": "\(key.teamID)"])
        }
    }

    /// Refreshes (every few seconds, and at once when told of a change) and closes clients no longer needed until
    /// cancelled, then stops every client it made.
    func run() async {
        let changed = WakeSignal()
        let listener = SigningChangeListener(database: database, logger: logger)
        let listening = Task { await listener.run(signalling: changed) }
        while !Task.isCancelled {
            await changed.wait(timeout: Self.refreshInterval)
            guard !Task.isCancelled else { break }
            do {
                try await refresh()
            } catch {
                logger.warning(
                    "cannot read the apps and signing keys; keeping the last ones", metadata: ["error": "\(error)"])
            }
            closeUnneededClients()
        }
        listening.cancel()
        await listening.value
        for client in state.withLock({ Array($0.clients.values) }) { client.stop() }
    }

    /// Stops the token renewal of keys no longer active at once, and closes the connections of a key that is no
    /// longer active or has been idle for `keyIdleLifetime`, once no send is using them.
    private func closeUnneededClients() {
        let now = ContinuousClock.now
        let closed = state.withLock { state -> [(KeyRef, KeyClient, active: Bool)] in
            let active = Set(state.routes.map(\.ref))
            var closed: [(KeyRef, KeyClient, active: Bool)] = []
            for (ref, client) in state.clients {
                let isActive = active.contains(ref)
                if !isActive, let renewal = client.renewal {
                    renewal.cancel()
                    state.clients[ref]?.renewal = nil
                }
                guard client.inFlight == 0, client.connections != nil,
                    !isActive || now - client.lastUsed >= settings.keyIdleLifetime
                else { continue }
                state.clients[ref] = nil
                closed.append((ref, client, isActive))
            }
            return closed
        }
        for (ref, client, active) in closed {
            client.stop()
            logger.info(
                "closed the APNs connections of signing key \(ref): \(active ? "idle" : "no longer active")",
                metadata: ["herald.apns.key_id": "\(ref.keyID)", "herald.apns.team_id": "\(ref.teamID)"])
        }
    }

    func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
        let routes = candidates(topic: request.topic, environment: environment)
        guard let routes else { return try await defaultClient.send(request, environment: environment) }
        var last: PushResult = .failed(
            .noSigningKey("no active signing key of the app's team may sign for \(request.topic) in \(environment)"))
        for (position, route) in routes.enumerated() {
            guard let client = await acquireClient(for: route) else { continue }
            defer { release(route.ref) }
            last = try await client.send(request, environment: environment)
            guard case .rejected(let rejection) = last, Self.refusesKey(rejection.reason),
                position < routes.count - 1
            else { return last }
            pause(route.ref, reason: rejection.reason)
        }
        return last
    }

    /// Sends each topic's pushes as one batch through that topic's best key. A push that Apple answers by refusing
    /// the key goes again alone through ``send(_:environment:)-(PushRequest,_)``, which pauses that key and tries
    /// the team's next one.
    func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
        let (answers, output) = PushAnswers.makeStream()
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for indices in Dictionary(grouping: requests.indices, by: { requests[$0].topic }).values {
                    group.addTask {
                        await self.send(indices.map { requests[$0] }, at: indices, environment: environment, to: output)
                    }
                }
            }
            output.finish()
        }
        output.onTermination = { _ in task.cancel() }
        return answers
    }

    /// Sends the pushes of one topic, answering each at its position in the caller's batch; unanswered when
    /// cancelled means `.failed(.cancelled)`.
    private func send(
        _ share: [PushRequest], at positions: [Int], environment: APNsEnvironment, to output: PushAnswers.Continuation
    ) async {
        let routes = candidates(topic: share[0].topic, environment: environment)
        // Before the first read of the keys there are no routes, and the settings' key signs. With routes but none
        // usable (no key may sign, or the best key's material is unreadable), the one-push path answers why, or
        // pauses the key and tries the next.
        var client: APNsClient? = routes == nil ? defaultClient : nil
        if let route = routes?.first { client = await acquireClient(for: route) }
        guard let client else {
            return await sendOneByOne(
                Array(share.indices), of: share, at: positions, environment: environment, to: output)
        }
        defer { if let route = routes?.first { release(route.ref) } }
        var unanswered = Set(share.indices)
        var refused: [Int] = []
        for await chunk in client.send(share, environment: environment) {
            var passed: [PushAnswer] = []
            passed.reserveCapacity(chunk.count)
            for answer in chunk {
                unanswered.remove(answer.index)
                if case .rejected(let rejection) = answer.result, Self.refusesKey(rejection.reason),
                    let route = routes?.first, (routes?.count ?? 0) > 1
                {
                    pause(route.ref, reason: rejection.reason)
                    refused.append(answer.index)
                } else {
                    passed.append(
                        PushAnswer(index: positions[answer.index], result: answer.result, latency: answer.latency))
                }
            }
            if !passed.isEmpty { output.yield(passed) }
        }
        await sendOneByOne(refused, of: share, at: positions, environment: environment, to: output)
        if !unanswered.isEmpty {
            output.yield(
                unanswered.map { PushAnswer(index: positions[$0], result: .failed(.cancelled), latency: .zero) })
        }
    }

    /// Sends `indices` of `share` through the one-push path, all at once, answering at the caller's positions.
    private func sendOneByOne(
        _ indices: [Int], of share: [PushRequest], at positions: [Int], environment: APNsEnvironment,
        to output: PushAnswers.Continuation
    ) async {
        let answers = PushAnswers.concurrently(indices.map { share[$0] }) {
            try await self.send($0, environment: environment)
        }
        for await chunk in answers {
            output.yield(
                chunk.map {
                    PushAnswer(index: positions[indices[$0.index]], result: $0.result, latency: $0.latency)
                })
        }
    }

    /// The keys to try, best first (topic-specific, then the settings' key, then by id); nil before the first read.
    private func candidates(topic: String, environment: APNsEnvironment) -> [Route]? {
        let now = ContinuousClock.now
        return state.withLock { state -> [Route]? in
            guard state.loaded else { return nil }
            let bundleID = Self.bundleID(of: topic, among: state.teams.keys)
            let team = bundleID.flatMap { state.teams[$0] } ?? defaultKey.teamID
            let pushEnvironment = PushEnvironment(environment)
            for (key, until) in state.pausedUntil where until <= now {
                state.pausedUntil[key] = nil
                pausedGauge(key).record(0)
            }
            return state.routes.filter { route in
                route.key.teamID == team && route.key.signs(topic: bundleID ?? topic, environment: pushEnvironment)
                    && state.pausedUntil[route.ref] == nil
            }.sorted { left, right in
                (left.key.topics.isEmpty ? 1 : 0, left.ref == defaultKey ? 0 : 1, left.key.keyID)
                    < (right.key.topics.isEmpty ? 1 : 0, right.ref == defaultKey ? 0 : 1, right.key.keyID)
            }
        }
    }

    /// The bundle id a topic belongs to: itself, or the longest known bundle id it extends with a push type's suffix.
    static func bundleID(of topic: String, among bundleIDs: some Collection<String>) -> String? {
        if bundleIDs.contains(topic) { return topic }
        return bundleIDs.filter { topic.hasPrefix($0 + ".") }.max { $0.count < $1.count }
    }

    static func refusesKey(_ reason: APNsReason) -> Bool {
        [.invalidProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken].contains(reason)
    }

    private func pause(_ key: KeyRef, reason: APNsReason) {
        state.withLock { $0.pausedUntil[key] = .now + Self.keyPause }
        pausedGauge(key).record(1)
        logger.error(
            """
            APNs refused signing key \(key) (\(reason)); pausing that key for \(Int(Self.keyPause.seconds)) s and \
            sending with the team's next key
            """,
            metadata: ["herald.apns.key_id": "\(key.keyID)", "herald.apns.team_id": "\(key.teamID)"])
    }

    /// The key's client, made on first use and counted as in use until ``release(_:)``; nil (and the key paused)
    /// when its material cannot be read.
    private func acquireClient(for route: Route) async -> APNsClient? {
        if route.ref == defaultKey { return defaultClient }
        let now = ContinuousClock.now
        let making = state.withLock { state in
            if state.clients[route.ref] == nil {
                state.clients[route.ref] = KeyClient(
                    making: Task { await self.makeClient(for: route) }, lastUsed: now)
            }
            state.clients[route.ref]!.inFlight += 1
            state.clients[route.ref]!.lastUsed = now
            return state.clients[route.ref]!.making
        }
        return await making.value
    }

    /// Ends one use of the key's client.
    private func release(_ ref: KeyRef) {
        guard ref != defaultKey else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            state.clients[ref]?.inFlight -= 1
            state.clients[ref]?.lastUsed = now
        }
    }

    /// Reads the key, adopts the fleet's provider token for it before the first push (so no process mints a token
    /// of its own that Apple may refuse), and starts its connections and token renewal.
    private func makeClient(for route: Route) async -> APNsClient? {
        do {
            let source = ProviderTokenSource(
                key: try P256PrivateKey(pem: try route.material.pem(of: route.key, masterKey: masterKey)),
                keyID: route.key.keyID, teamID: route.key.teamID, logger: logger)
            let made = try settings.makeClient(tokens: source, logger: logger)
            let tokens = ProviderTokenCoordinator(
                store: ProviderTokenStore(client: database), source: source, logger: logger)
            try? await tokens.synchronize()
            state.withLock { state in
                state.clients[route.ref]?.connections = Task { await made.run() }
                state.clients[route.ref]?.renewal = Task { await tokens.run() }
            }
            return made
        } catch {
            state.withLock { state in
                state.pausedUntil[route.ref] = .now + Self.keyPause
                state.clients[route.ref] = nil
            }
            pausedGauge(route.ref).record(1)
            logger.error(
                "cannot use signing key \(route.ref): \(error); pausing it",
                metadata: ["herald.apns.key_id": "\(route.key.keyID)"])
            return nil
        }
    }
}
