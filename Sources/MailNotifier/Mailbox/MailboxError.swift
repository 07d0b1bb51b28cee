/// Why the mailbox file could not be read, written or changed.
public enum MailboxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No file at the path; a mailbox is never invented, since an empty one would prune every muted thread.
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    case threadNotFound(ThreadID)
    case messageNotFound(EmailID)
    /// The outgoing message is not in the state the step needs, e.g. sent before it was queued.
    case messageNotReady(EmailID, state: OutgoingMessage.State, expected: OutgoingMessage.State)

    public var description: String {
        switch self {
        case .missing(let path): "no mailbox file at \(path) (an empty mailbox is {\"emails\": []})"
        case .unreadable(let path, let reason): "cannot read mailbox file \(path): \(reason)"
        case .writeFailed(let path, let reason): "cannot write mailbox file \(path): \(reason)"
        case .threadNotFound(let thread): "no email of thread \(thread) in the mailbox"
        case .messageNotFound(let id): "no outgoing message \(id) in the mailbox"
        case .messageNotReady(let id, let state, let expected):
            "outgoing message \(id) is \(state.rawValue), expected \(expected.rawValue)"
        }
    }
}
