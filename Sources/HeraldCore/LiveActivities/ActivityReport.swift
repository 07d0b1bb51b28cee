/// What became of an app's report of a running activity's update token.
public enum ActivityReport: Sendable, Equatable {
    /// The activity is new on this device.
    case started
    /// The device had reported the activity before; its token was replaced.
    case updated
    /// The caller has no active device with this id in its scope; nothing was written.
    case noDevice
    /// The id was first reported by another user, or from another app: it belongs to them, and nothing was written.
    case ownedByAnother
}
