/// The identifier of a mail account; notifications can be switched off per account.
public struct AccountID: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

}
