import APNsCore

/// One ``BurstGuard`` per app and environment, the unit a signing key serves (the key router signs each push with
/// a key of its app's team for its topic and environment): fake or dead tokens registered for one app trip that
/// app's guard alone, and deactivations for every other app and environment go on.
struct BurstGuards {
    /// Whose answers a guard counts: the app's bundle id (the device's topic, else the engine's default) and the
    /// environment the push went to.
    struct Scope: Hashable, Sendable, CustomStringConvertible {
        let topic: String
        let environment: APNsEnvironment

        init(topic: String, environment: APNsEnvironment) {
            self.topic = topic
            self.environment = environment
        }

        init(_ delivery: ClaimedDelivery, defaultTopic: String?) {
            self.init(topic: delivery.deviceTopic ?? defaultTopic ?? "", environment: delivery.environment)
        }

        var description: String { "\(topic) (\(environment.rawValue))" }
    }

    /// The thresholds every guard starts with.
    let template: BurstGuard
    private var guards: [Scope: BurstGuard] = [:]

    init(template: BurstGuard) {
        self.template = template
    }

    /// Counts one answer from Apple for a push in `scope`.
    mutating func record(wouldDeactivate: Bool, in scope: Scope) {
        guards[scope, default: template].record(wouldDeactivate: wouldDeactivate)
    }

    /// Whether deactivations in `scope` must be held back now.
    func isTripped(_ scope: Scope) -> Bool { guards[scope]?.isTripped ?? false }

    /// The scopes whose guard is tripped now, with their deactivating answers.
    var tripped: [Scope: Int] {
        guards.filter { $0.value.isTripped }.mapValues(\.deactivatingCount)
    }
}
