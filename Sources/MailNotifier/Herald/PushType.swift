/// The APNs push type Herald should use. An open set, as Apple adds types.
public struct PushType: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let alert = PushType(rawValue: "alert")
    public static let background = PushType(rawValue: "background")
}
