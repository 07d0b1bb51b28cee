public import Foundation

/// What the filters may look at besides the email: the settings as they are now, and the clock.
public struct FilterContext: Sendable {
    public let settings: NotificationSettings
    public let now: Date
    /// The zone quiet hours are read in: the settings' zone, else the machine's.
    public let timeZone: TimeZone
    /// Minutes since midnight of `now` in ``timeZone``, computed once per batch.
    public let minuteOfDay: Int

    /// - Parameter machineTimeZone: the zone used when the settings name none; tests fix it.
    public init(settings: NotificationSettings, now: Date, machineTimeZone: TimeZone = .current) {
        self.settings = settings
        self.now = now
        self.timeZone = settings.timeZone ?? machineTimeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        self.minuteOfDay = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }
}
