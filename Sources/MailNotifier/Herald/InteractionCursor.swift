/// Where a reader of Herald's interactions has got to: opaque, handed back as `since` to read on from there.
public struct InteractionCursor: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}
