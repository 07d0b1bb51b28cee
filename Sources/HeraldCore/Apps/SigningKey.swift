public import Foundation

/// One of a team's APNs auth keys (`.p8`), as Herald keeps it: which environments and topics it may sign for,
/// where its material is, and whether it still signs. Its material is never part of this value.
public struct SigningKey: Sendable, Equatable {
    /// Which environments a key may sign for.
    public enum Environments: String, Sendable, CaseIterable {
        case both, sandbox, production

        public func allows(_ environment: PushEnvironment) -> Bool {
            self == .both || rawValue == environment.rawValue
        }
    }

    /// `active` signs new tokens; `retiring` lets what is in flight finish and signs nothing new; `retired` is kept
    /// for the record.
    public enum State: String, Sendable, CaseIterable {
        case active, retiring, retired
    }

    /// Where the key's PEM is: a file on the host, or sealed in the database under the master key.
    public enum Storage: String, Sendable {
        case file, sealed
    }

    public var teamID: String
    public var keyID: String
    public var environments: Environments
    /// Empty for a team-scoped key; else the only topics it may sign for.
    public var topics: [String]
    public var storage: Storage
    public var state: State
    public var createdAt: Date
    public var retiredAt: Date?

    /// Whether this key may sign a push to `topic` in `environment` now.
    public func signs(topic: String, environment: PushEnvironment) -> Bool {
        state == .active && environments.allows(environment) && (topics.isEmpty || topics.contains(topic))
    }
}

/// What `herald apns-keys add` and `POST /api/v1/apns-keys` give, checked and named when wrong.
public struct SigningKeyDefinition: Sendable {
    public var teamID: String
    public var keyID: String
    public var environments: SigningKey.Environments
    public var topics: [String]

    /// Apple allows up to 400 topics per topic-specific key.
    public static let maximumTopics = 400

    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public init(teamID: String, keyID: String, environments: SigningKey.Environments, topics: [String])
        throws(DomainError)
    {
        guard AppDefinition.isAppleID(teamID) else { throw .invalid("must be 1 to 32 of A-Z a-z 0-9", field: "teamId") }
        guard AppDefinition.isAppleID(keyID) else { throw .invalid("must be 1 to 32 of A-Z a-z 0-9", field: "keyId") }
        guard topics.count <= Self.maximumTopics else {
            throw .invalid("at most \(Self.maximumTopics) topics", field: "topics")
        }
        for (index, topic) in topics.enumerated() where !AppDefinition.isBundleID(topic) {
            throw .invalid("must be a bundle id: 1 to 255 of A-Z a-z 0-9 . -", field: "topics[\(index)]")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.environments = environments
        self.topics = Array(Set(topics)).sorted()
    }
}
