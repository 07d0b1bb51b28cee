import Testing

@testable import HeraldCore

/// The database takes POSIX rules as time zones too (`UTC+3` is three hours west); only zone names reach it.
@Suite struct QuietHoursZoneNameTests {
    @Test(arguments: ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+3", "GB-Eire", "Etc/GMT-14"])
    func zoneNamesHaveTheirShape(_ name: String) {
        #expect(QuietHours.isZoneName(name))
    }

    @Test(arguments: [
        "UTC+3", "EST5", "EST5EDT", "GMT0", "<+03>-3", "EST5EDT,M3.2.0/2,M11.1.0/2", "Europe//Berlin", "/UTC", "UTC/",
        "3Zone/Name", "Europe/Berlin ", "Europe/Berlín", "",
    ])
    func otherShapesAreNot(_ name: String) {
        #expect(!QuietHours.isZoneName(name))
    }

    @Test func aChangeWithAPOSIXRuleIsRefusedByField() {
        #expect(throws: DomainError.invalid(QuietHours.zoneNameRule, field: "quietHours.timeZone")) {
            try QuietHoursChange(enabled: true, start: 60, end: 120, timeZone: "UTC+3")
        }
    }
}
