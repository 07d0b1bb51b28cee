/// A daily quiet period in minutes since midnight, in the settings' time zone.
///
/// `start < end` is a daytime range (09:00–17:00); `start > end` wraps past midnight (22:00–07:00);
/// `start == end` is empty. The start minute is inside, the end minute is outside.
public struct QuietHours: Hashable, Sendable {
    public static let minutesPerDay = 24 * 60
    /// 22:00, the start used while the user has not chosen one.
    public static let defaultStart = 22 * 60
    /// 07:00, the end used while the user has not chosen one.
    public static let defaultEnd = 7 * 60

    public let start: Int
    public let end: Int

    /// - Precondition: both values are in `0..<1440`; settings validate them on load.
    public init(start: Int, end: Int) {
        precondition(Self.isValidMinute(start) && Self.isValidMinute(end), "minute of day out of range")
        self.start = start
        self.end = end
    }

    /// Whether `minuteOfDay` falls in the quiet period.
    public func contains(minuteOfDay minute: Int) -> Bool {
        if start < end {
            return minute >= start && minute < end
        }
        if start > end {
            return minute >= start || minute < end
        }
        return false
    }

    public static func isValidMinute(_ minute: Int) -> Bool {
        (0..<minutesPerDay).contains(minute)
    }
}
