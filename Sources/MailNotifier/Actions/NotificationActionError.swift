/// Why a notification action could not be completed. The banner is withdrawn and the badge updated
/// even then, since the email it showed is gone or handled.
public enum NotificationActionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The banner's data lacks a required key.
    case missingUserInfo(key: String)
    case threadNotFound(ThreadID)
    case emailNotFound(EmailID)
    case missingReplyText
    /// The mail use case failed, e.g. the thread was already deleted.
    case actionFailed(NotificationAction, reason: String)
    /// The action worked but the banner or badge could not be updated.
    case cleanupFailed(HeraldError)

    public var description: String {
        switch self {
        case .missingUserInfo(let key): "notification data lacks \(key)"
        case .threadNotFound(let thread): "thread \(thread) not found"
        case .emailNotFound(let email): "email \(email) not found"
        case .missingReplyText: "reply has no text"
        case .actionFailed(let action, let reason): "\(action.rawValue) failed: \(reason)"
        case .cleanupFailed(let error): "could not update banners or badge: \(error)"
        }
    }
}
