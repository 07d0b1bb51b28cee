/// Reads emails and threads from the mail store.
public protocol EmailRepository: Sendable {
    func email(id: EmailID) async throws -> Email?
    func thread(id: ThreadID) async throws -> MailThread?
}
