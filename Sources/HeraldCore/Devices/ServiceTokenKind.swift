public import APNsCore

/// The push services whose tokens a device keeps besides its own: Apple issues a token per service, and a token works
/// only on its own service's topic (`DeviceTokenNotForTopic` otherwise). `alert` and `background` pushes go to the
/// device token; a push of one of these types goes to the device's token of its kind. Live Activity tokens have their
/// own kinds and routes.
public enum ServiceTokenKind: String, Sendable, CaseIterable, Codable {
    /// PushKit `.voIP`.
    case voip
    /// PushKit `.complication`.
    case complication
    /// PushKit `.fileProvider`.
    case fileprovider
    /// The location push service extension.
    case location
    /// `PTChannelManager`.
    case pushtotalk
    /// WidgetKit `WidgetPushInfo.token`.
    case widgets
    /// WidgetKit `ControlPushInfo.token`.
    case controls

    public var pushType: PushType {
        switch self {
        case .voip: .voip
        case .complication: .complication
        case .fileprovider: .fileProvider
        case .location: .location
        case .pushtotalk: .pushToTalk
        case .widgets: .widgets
        case .controls: .controls
        }
    }

    /// Why a device without this kind's token was skipped; expansion writes the same `no_<kind>_token` in SQL.
    public var missingTokenReason: SuppressionReason {
        switch self {
        case .voip: .noVoipToken
        case .complication: .noComplicationToken
        case .fileprovider: .noFileproviderToken
        case .location: .noLocationToken
        case .pushtotalk: .noPushtotalkToken
        case .widgets: .noWidgetsToken
        case .controls: .noControlsToken
        }
    }

    /// The kinds as an SQL list of literals, for statements that pick a push's token.
    static var sqlList: String { allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") }
}
