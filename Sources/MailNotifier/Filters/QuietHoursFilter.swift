/// Suppresses emails during the user's quiet hours (NOTIF-14), read on the clock of the settings' time
/// zone, or the machine's when they name none, so a daylight-saving change moves the window with the user.
public struct QuietHoursFilter: NotificationFilter {
    public init() {}

    public var name: FilterName { .quietHours }

    public func shouldNotify(for email: Email, in context: FilterContext) -> Bool {
        guard let quietHours = context.settings.activeQuietHours else { return true }
        return !quietHours.contains(minuteOfDay: context.minuteOfDay)
    }
}
