/// Runs the filters of NOTIF-07: the VIP override first, then every other filter with AND logic,
/// cheapest first, stopping at the first rejection.
public struct NotificationFilterPipeline: Sendable {
    public let override: any NotificationFilter
    public let filters: [any NotificationFilter]

    public init(override: any NotificationFilter = VIPContactFilter(), filters: [any NotificationFilter]) {
        self.override = override
        self.filters = filters
    }

    /// The spec's order: Account → Spam → FolderType → MutedThread → Category → QuietHours → FocusMode.
    public static let standard = NotificationFilterPipeline(filters: [
        AccountNotificationFilter(),
        SpamNotificationFilter(),
        FolderTypeNotificationFilter(),
        MutedThreadFilter(),
        CategoryNotificationFilter(),
        QuietHoursFilter(),
        FocusModeFilter(),
    ])

    public func decide(_ email: Email, in context: FilterContext) -> FilterDecision {
        if override.shouldNotify(for: email, in: context) {
            return .vip
        }
        for filter in filters where !filter.shouldNotify(for: email, in: context) {
            return .rejected(by: filter.name)
        }
        return .passed
    }

    /// The emails allowed to notify, in their original order.
    public func filter(_ emails: [Email], in context: FilterContext) -> [Email] {
        emails.filter { decide($0, in: context).allowsNotification }
    }
}
