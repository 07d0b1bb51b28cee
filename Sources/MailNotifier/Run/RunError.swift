/// Why a `mail-notifier` run could not start or finish.
public enum RunError: Error, Hashable, Sendable, CustomStringConvertible {
    case emailsFile(path: String, reason: String)
    case stateFile(path: String, reason: String)
    case mailboxFile(MailboxError)

    public var description: String {
        switch self {
        case .emailsFile(let path, let reason): "cannot read emails from \(path): \(reason)"
        case .stateFile(let path, let reason): "cannot use state file \(path): \(reason)"
        case .mailboxFile(let error): error.description
        }
    }
}
