import Foundation
import MailNotifier
import Testing

@Suite("QuietHoursFilter (NOTIF-14, AC-N-07)")
struct QuietHoursFilterTests {
    let filter = QuietHoursFilter()

    /// Quiet hours on, 22:00–07:00 by default unless a range is given.
    func quiet(_ start: Int? = nil, _ end: Int? = nil, zone: String = "UTC") throws -> NotificationSettings {
        try settings {
            $0.quietHoursEnabled = true
            $0.timeZone = TimeZone(identifier: zone)!
            if let start, let end {
                try $0.setQuietHours(start: start, end: end)
            }
        }
    }

    @Test func acN07DuringOvernightHoursIsSuppressed() throws {
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(try quiet(), now: at(23, 30))))
    }

    @Test func acN07OutsideOvernightHoursPasses() throws {
        #expect(filter.shouldNotify(for: makeEmail(), in: context(try quiet(), now: at(12, 0))))
    }

    @Test func acN07DisabledAlwaysPasses() {
        let value = settings { $0.quietHoursEnabled = false }
        #expect(filter.shouldNotify(for: makeEmail(), in: context(value, now: at(23, 30))))
    }

    @Test func e08OvernightLastMinuteIsSuppressed() throws {
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(try quiet(1320, 420), now: at(6, 59))))
    }

    @Test func e09OvernightEndMinutePasses() throws {
        #expect(filter.shouldNotify(for: makeEmail(), in: context(try quiet(1320, 420), now: at(7, 0))))
    }

    @Test func e10NormalRangeMiddayIsSuppressed() throws {
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(try quiet(540, 1020), now: at(12, 0))))
    }

    @Test func normalRangeBoundaries() throws {
        let daytime = try quiet(540, 1020)
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(daytime, now: at(9, 0))))
        #expect(filter.shouldNotify(for: makeEmail(), in: context(daytime, now: at(8, 59))))
        #expect(filter.shouldNotify(for: makeEmail(), in: context(daytime, now: at(17, 0))))
    }

    @Test func overnightStartMinuteIsSuppressed() throws {
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(try quiet(), now: at(22, 0))))
        #expect(filter.shouldNotify(for: makeEmail(), in: context(try quiet(), now: at(21, 59))))
    }

    @Test func midnightStartIsNotTheUnsetDefault() throws {
        let fromMidnight = try quiet(0, 360)
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(fromMidnight, now: at(0, 0))))
        #expect(filter.shouldNotify(for: makeEmail(), in: context(fromMidnight, now: at(23, 30))))
    }

    @Test func equalStartAndEndNeverSuppresses() throws {
        #expect(filter.shouldNotify(for: makeEmail(), in: context(try quiet(600, 600), now: at(10, 0))))
    }

    @Test func readsTheClockInTheConfiguredTimeZone() throws {
        // 12:00 UTC is 23:00 in Sydney (UTC+11 in February): inside 22:00–07:00 there, not in UTC.
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(try quiet(zone: "Australia/Sydney"), now: noon)))
        #expect(filter.shouldNotify(for: makeEmail(), in: context(try quiet(zone: "UTC"), now: noon)))
    }

    @Test func settingsNamingNoZoneReadTheMachinesClock() throws {
        var noZone = try quiet()
        noZone.timeZone = nil
        // 12:00 UTC: 23:00 on a machine in Sydney (inside 22:00–07:00), noon on a machine in UTC.
        let sydney = TimeZone(identifier: "Australia/Sydney")!
        #expect(!filter.shouldNotify(for: makeEmail(), in: context(noZone, now: noon, machineTimeZone: sydney)))
        #expect(filter.shouldNotify(for: makeEmail(), in: context(noZone, now: noon, machineTimeZone: utc())))
        // A zone the user named wins over the machine's.
        #expect(filter.shouldNotify(for: makeEmail(), in: context(try quiet(zone: "UTC"), machineTimeZone: sydney)))
    }

    @Test func outOfRangeMinutesAreRejected() {
        var value = NotificationSettings()
        #expect(throws: SettingsError.minuteOutOfRange(key: "quietHoursStart", value: 1440)) {
            try value.setQuietHours(start: 1440, end: 0)
        }
    }
}
