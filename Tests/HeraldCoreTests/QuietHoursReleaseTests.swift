import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// `herald_quiet_hours_release` (migration 0028), which expansion calls for every recipient with quiet hours: when a
/// push due at a given instant may go, in zones whose clocks change.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct QuietHoursReleaseTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var start: Int
        var end: Int
        var zone: String
        var at: String
        /// The expected release in UTC; nil when `at` is outside the window.
        var release: String?
        var testDescription: String { "\(zone) \(start)–\(end) at \(at)" }
    }

    static let cases: [Case] = [
        // New York springs forward on 2026-03-08 at 02:00 EST: 07:00 that morning is EDT, 11:00 UTC, not 12:00.
        Case(
            start: 22 * 60, end: 7 * 60, zone: "America/New_York", at: "2026-03-08T05:00:00Z",
            release: "2026-03-08T11:00:00Z"),
        // The evening before, still EST: the window ends the next morning, across the change.
        Case(
            start: 22 * 60, end: 7 * 60, zone: "America/New_York", at: "2026-03-08T03:30:00Z",
            release: "2026-03-08T11:00:00Z"),
        // It falls back on 2026-11-01 at 02:00 EDT: 07:00 that morning is EST, 12:00 UTC.
        Case(
            start: 22 * 60, end: 7 * 60, zone: "America/New_York", at: "2026-11-01T04:00:00Z",
            release: "2026-11-01T12:00:00Z"),
        // A window ending in the skipped hour (02:30 does not exist that night) ends at 03:30 EDT.
        Case(
            start: 60, end: 150, zone: "America/New_York", at: "2026-03-08T06:10:00Z",
            release: "2026-03-08T07:30:00Z"),
        // Berlin changes on 2026-03-29: 23:30 CET is inside 22:00–07:00, which ends at 07:00 CEST (05:00 UTC).
        Case(
            start: 22 * 60, end: 7 * 60, zone: "Europe/Berlin", at: "2026-03-28T22:30:00Z",
            release: "2026-03-29T05:00:00Z"),
        // Outside the window, and at its end exactly: no wait.
        Case(start: 22 * 60, end: 7 * 60, zone: "Europe/Berlin", at: "2026-06-01T10:00:00Z", release: nil),
        Case(start: 22 * 60, end: 7 * 60, zone: "Europe/Berlin", at: "2026-06-01T05:00:00Z", release: nil),
        // A daytime window, and its first minute.
        Case(
            start: 13 * 60, end: 14 * 60, zone: "Asia/Tokyo", at: "2026-06-01T04:00:00Z",
            release: "2026-06-01T05:00:00Z"),
        // A zone the database does not know counts as UTC instead of failing everyone's expansion.
        Case(
            start: 60, end: 120, zone: "Nowhere/Special", at: "2026-06-01T01:30:00Z",
            release: "2026-06-01T02:00:00Z"),
    ]

    @Test(arguments: cases) func releasesAtTheWindowsLocalEnd(_ example: Case) async throws {
        let database = try await CoreDatabase.make()
        defer { database.client.shutdown() }
        let at = try #require(RFC3339Timestamp.parse(example.at))
        let release = try await database.client.query(
            "SELECT herald_quiet_hours_release(\(example.start)::int, \(example.end)::int, \(example.zone), \(at))"
        ).scalar(Date?.self)
        #expect(release == example.release.flatMap(RFC3339Timestamp.parse))
    }
}
