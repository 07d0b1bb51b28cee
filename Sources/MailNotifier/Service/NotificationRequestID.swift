/// The identifier of an email's notification, `email-<id>` (NOTIF-04): posting it again replaces the
/// earlier banner, and removal targets it. On the wire (Herald, APNs, the device) it travels as its
/// ``CollapseID``, which is the same text unless that exceeds APNs' 64 bytes.
public struct NotificationRequestID: Hashable, Sendable, CustomStringConvertible {
    public let emailId: EmailID

    public init(emailId: EmailID) {
        self.emailId = emailId
    }

    public var rawValue: String { "email-\(emailId.rawValue)" }

    public var description: String { rawValue }
}
