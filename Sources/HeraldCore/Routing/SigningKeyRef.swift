/// Names one signing key: its team and its key id, as Apple knows it.
public struct SigningKeyRef: Hashable, Sendable, CustomStringConvertible {
    public let teamID: String
    public let keyID: String

    public init(teamID: String, keyID: String) {
        self.teamID = teamID
        self.keyID = keyID
    }

    public init(_ key: SigningKey) {
        self.init(teamID: key.teamID, keyID: key.keyID)
    }

    public var description: String { "\(teamID)/\(keyID)" }
}
