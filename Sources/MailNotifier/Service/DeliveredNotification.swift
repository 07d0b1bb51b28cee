/// An email that has been notified, with its thread so a whole thread's banners can be withdrawn.
public struct DeliveredNotification: Hashable, Sendable, Codable {
    public var emailId: EmailID
    public var threadId: ThreadID

    public init(emailId: EmailID, threadId: ThreadID) {
        self.emailId = emailId
        self.threadId = threadId
    }
}
