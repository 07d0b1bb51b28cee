/// Applies the per-category switches (NOTIF-09). Emails the classifier has not handled yet (no
/// category, or "uncategorized") always pass, so a slow classifier never hides mail.
public struct CategoryNotificationFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .category }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        guard let category = email.aiCategory, category != .uncategorized else { return true }
        return context.settings.notificationCategoryEnabled(for: category)
    }
}
