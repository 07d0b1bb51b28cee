/// Which signing keys may sign a push, best first: the apps' teams, the active keys with where their material is,
/// and the keys held back until a moment. A pure value: the router gives it the records it read and the time.
public struct KeyRoutingTable<Instant: InstantProtocol & Sendable>: Sendable {
    /// A key that may sign, with where its private key is.
    public struct Route: Sendable {
        public let key: SigningKey
        public let material: SigningKeyStore.Material
        public var ref: SigningKeyRef { SigningKeyRef(key) }

        public init(key: SigningKey, material: SigningKeyStore.Material) {
            self.key = key
            self.material = material
        }
    }

    /// The settings' key: preferred among a team's team-wide keys, and the team of a topic no app claims.
    public let defaultKey: SigningKeyRef
    /// Whether the apps and keys were read at least once; before that, every push goes out with the default key.
    public private(set) var isLoaded = false
    /// Bundle id → team, from the apps on record.
    public private(set) var teams: [String: String] = [:]
    public private(set) var routes: [Route] = []
    public private(set) var pausedUntil: [SigningKeyRef: Instant] = [:]

    public init(defaultKey: SigningKeyRef) {
        self.defaultKey = defaultKey
    }

    /// Takes the apps and active keys just read; pauses are kept.
    public mutating func load(apps: [App], keys: [Route]) {
        teams = Dictionary(apps.map { ($0.bundleID, $0.teamID) }, uniquingKeysWith: { first, _ in first })
        routes = keys
        isLoaded = true
    }

    /// The keys that are active now.
    public var activeKeys: Set<SigningKeyRef> { Set(routes.map(\.ref)) }

    /// The keys to try for `topic` at `now`, best first: topic-specific keys, then the default key, then by key id;
    /// nil before the first ``load(apps:keys:)``. Only keys of the topic's team, allowed for the environment and
    /// topic, and not paused at `now`.
    public func candidates(topic: String, environment: PushEnvironment, now: Instant) -> [Route]? {
        guard isLoaded else { return nil }
        let bundleID = Self.bundleID(of: topic, among: teams.keys)
        let team = bundleID.flatMap { teams[$0] } ?? defaultKey.teamID
        return routes.filter { route in
            route.key.teamID == team && route.key.signs(topic: bundleID ?? topic, environment: environment)
                && !isPaused(route.ref, at: now)
        }.sorted { left, right in
            rank(left) < rank(right)
        }
    }

    /// Holds `key` back until `until`.
    public mutating func pause(_ key: SigningKeyRef, until: Instant) {
        pausedUntil[key] = until
    }

    /// Ends the pauses over at `now`.
    /// - Returns: The keys that may sign again.
    public mutating func endPauses(at now: Instant) -> [SigningKeyRef] {
        let over = pausedUntil.filter { $0.value <= now }.map(\.key)
        for key in over { pausedUntil[key] = nil }
        return over
    }

    public func isPaused(_ key: SigningKeyRef, at now: Instant) -> Bool {
        pausedUntil[key].map { now < $0 } ?? false
    }

    /// The bundle id a topic belongs to: itself, or the longest known bundle id it extends with a push type's suffix
    /// (`.voip`, `.push-type.liveactivity`, …).
    public static func bundleID(of topic: String, among bundleIDs: some Collection<String>) -> String? {
        if bundleIDs.contains(topic) { return topic }
        return bundleIDs.filter { topic.hasPrefix($0 + ".") }.max { $0.count < $1.count }
    }

    private func rank(_ route: Route) -> (Int, Int, String) {
        (route.key.topics.isEmpty ? 1 : 0, route.ref == defaultKey ? 0 : 1, route.key.keyID)
    }
}
