/// Placeholder for a Focus-mode rule (NOTIF-15). A server cannot see a device's Focus state, and the
/// device applies Focus itself when the push arrives, so this filter always passes.
public struct FocusModeFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .focusMode }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        true
    }
}
