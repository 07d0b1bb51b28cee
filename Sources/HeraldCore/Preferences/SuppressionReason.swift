/// Why a recipient got no push, in resolution order (the `notification_suppressions.reason` values).
public enum SuppressionReason: String, Sendable, CaseIterable, Codable {
    /// The user's global push toggle is off.
    case globalOff = "global_off"
    /// The user muted the project.
    case muted
    /// The personal toggle for the type is off and no project override is set.
    case typeOff = "type_off"
    /// The project override for the type is off.
    case overrideOff = "override_off"
    /// The user would be notified but has no active device.
    case noActiveDevice = "no_active_device"
}
