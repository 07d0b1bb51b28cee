/// Marks every unread email of a thread as read.
public protocol MarkReadUseCase: Sendable {
    func markAllRead(in thread: MailThread) async throws
}
