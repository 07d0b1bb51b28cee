/// Apple's two push environments.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case sandbox
    case production

    /// Apple's host for this environment.
    public var defaultHost: String {
        switch self {
        case .sandbox: "api.sandbox.push.apple.com"
        case .production: "api.push.apple.com"
        }
    }
}
