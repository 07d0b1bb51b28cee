/// Which apps a caller sees and sends for: every app (user tokens, API keys without an app) or one (an app's API
/// key). Whatever lies outside a caller's scope is reported as absent, so a key cannot even learn it exists.
public enum AppScope: Sendable, Equatable {
    case everyApp
    case app(ExternalID)

    /// The one app, or `nil` for every app: what SQL filters compare with.
    public var app: ExternalID? {
        if case .app(let app) = self { app } else { nil }
    }

    /// Whether `app` is inside this scope.
    public func admits(_ app: ExternalID) -> Bool {
        self == .everyApp || self == .app(app)
    }
}
