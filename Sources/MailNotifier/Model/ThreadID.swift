/// The identifier of an email thread; notifications of one thread are grouped and removed together.
public struct ThreadID: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

}
