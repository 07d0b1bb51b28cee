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
    /// The push goes to a service's token (``ServiceTokenKind``) and none of the user's devices has one.
    case noVoipToken = "no_voip_token"
    case noComplicationToken = "no_complication_token"
    case noFileproviderToken = "no_fileprovider_token"
    case noLocationToken = "no_location_token"
    case noPushtotalkToken = "no_pushtotalk_token"
    case noWidgetsToken = "no_widgets_token"
    case noControlsToken = "no_controls_token"
}
