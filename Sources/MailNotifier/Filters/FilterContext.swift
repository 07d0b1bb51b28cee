public import Foundation

/// What the filters may look at besides the email: the settings as they are now, and the clock.
public struct FilterContext: Sendable {
    public let settings: NotificationSettings
    public let now: Date
    /// Minutes since midnight of `now` in the settings' time zone, computed once per batch.
    public let minuteOfDay: Int

    public init(settings: NotificationSettings, now: Date) {
        self.settings = settings
        self.now = now
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = settings.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        self.minuteOfDay = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }
}
