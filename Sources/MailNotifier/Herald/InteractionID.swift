/// Herald's id for one recorded interaction with a notification: a tap on an action, an open or a dismissal.
public struct InteractionID: StringIdentifier {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}
