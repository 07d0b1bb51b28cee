/// Lets through only emails filed in at least one inbox-type folder (NOTIF-13): sent mail, drafts,
/// trash, spam, archive and custom folders never notify.
public struct FolderTypeNotificationFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .folderType }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        email.isInInbox
    }
}
