import Foundation
import MailNotifier
import Synchronization
import Testing

/// Collects warnings a store reports.
final class WarningLog: Sendable {
    private let stored = Mutex<[SettingsError]>([])

    var warnings: [SettingsError] { stored.withLock { $0 } }

    func record(_ warning: SettingsError) {
        stored.withLock { $0.append(warning) }
    }
}

@Suite("SettingsStore (NOTIF-23, AC-N-14)")
struct SettingsStoreTests {
    @Test func acN14FreshInstallDefaults() async throws {
        let directory = try TemporaryDirectory()
        let value = await SettingsStore(fileURL: directory.file("settings.json")).settings
        #expect(value.categoryPreferences.isEmpty)
        #expect(value.vipContacts.isEmpty)
        #expect(value.mutedThreadIds.isEmpty)
        #expect(value.quietHoursEnabled == false)
        #expect(value.quietHoursStart == nil && value.quietHoursEnd == nil)
        let effective = try #require(settings { $0.quietHoursEnabled = true }.activeQuietHours)
        #expect(effective == QuietHours(start: 1320, end: 420))
        #expect(value.notificationsEnabled(for: "any-account"))
        #expect(value.notificationCategoryEnabled(for: .promotions))
    }

    @Test func acN14AddVIPContactStoresLowercased() async throws {
        let directory = try TemporaryDirectory()
        let store = SettingsStore(fileURL: directory.file("settings.json"))
        try await store.addVIPContact("John@Example.com")
        #expect(await store.settings.vipContacts == ["john@example.com"])
    }

    @Test func removeVIPContactIgnoresCase() async throws {
        let directory = try TemporaryDirectory()
        let store = SettingsStore(fileURL: directory.file("settings.json"))
        try await store.addVIPContact("john@example.com")
        try await store.removeVIPContact("JOHN@example.COM")
        #expect(await store.settings.vipContacts.isEmpty)
    }

    @Test func acN14ToggleMuteThreadTwice() async throws {
        let directory = try TemporaryDirectory()
        let store = SettingsStore(fileURL: directory.file("settings.json"))
        try await store.toggleMuteThread("T-123")
        #expect(await store.settings.mutedThreadIds == ["T-123"])
        try await store.toggleMuteThread("T-123")
        #expect(await store.settings.mutedThreadIds.isEmpty)
    }

    @Test func quietHoursPersistIncludingMidnight() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        let store = SettingsStore(fileURL: url)
        try await store.update { (value: inout NotificationSettings) throws(SettingsError) in
            value.quietHoursEnabled = true
            try value.setQuietHours(start: 0, end: 420)
        }
        let reloaded = await SettingsStore(fileURL: url).settings
        #expect(reloaded.quietHoursStart == 0)
        #expect(reloaded.activeQuietHours == QuietHours(start: 0, end: 420))
    }

    @Test func categoryPreferencesPersist() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        try await SettingsStore(fileURL: url).update { $0.setNotificationCategory(.promotions, enabled: false) }
        let reloaded = SettingsStore(fileURL: url)
        #expect(await reloaded.notificationCategoryEnabled(for: "Promotions") == false)
        #expect(await reloaded.notificationCategoryEnabled(for: .social))
    }

    @Test func acN14ResetAllRestoresDefaults() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        let store = SettingsStore(fileURL: url)
        try await store.update { (value: inout NotificationSettings) throws(SettingsError) in
            value.timeZone = TimeZone(identifier: "Europe/Paris")!
            value.addVIPContact("a@b.c")
            value.toggleMuteThread("T-1")
            value.setNotificationCategory(.social, enabled: false)
            value.quietHoursEnabled = true
            try value.setQuietHours(start: 60, end: 120)
            value.accountNotifications["acct"] = false
        }
        try await store.resetAll()
        let value = await store.settings
        #expect(value == NotificationSettings(timeZone: TimeZone(identifier: "Europe/Paris")!))
        #expect(await SettingsStore(fileURL: url).settings.vipContacts.isEmpty)
    }

    @Test func corruptFileGivesDefaultsAndAWarning() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        try Data("{ not json".utf8).write(to: url)
        let log = WarningLog()
        let value = await SettingsStore(fileURL: url, onWarning: log.record).settings
        #expect(value == NotificationSettings())
        #expect(log.warnings.count == 1)
        guard case .corrupt = log.warnings.first else {
            Issue.record("expected a corrupt-file warning, got \(log.warnings)")
            return
        }
    }

    @Test func missingFileGivesDefaultsAndAWarning() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("absent.json")
        let log = WarningLog()
        let value = await SettingsStore(fileURL: url, onWarning: log.record).settings
        #expect(value == NotificationSettings())
        #expect(log.warnings == [.missing(path: url.path)])
    }

    @Test func outOfRangeMinuteInFileIsCorrupt() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        try Data(#"{"quietHoursStart": 1500}"#.utf8).write(to: url)
        let log = WarningLog()
        _ = await SettingsStore(fileURL: url, onWarning: log.record).settings
        guard case .corrupt(_, let reason) = log.warnings.first else {
            Issue.record("expected a corrupt-file warning")
            return
        }
        #expect(reason.contains("quietHoursStart"))
    }

    @Test func readsTheSpecKeys() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        let json = """
            {"notifCategoryPreferences": {"Promotions": false}, "vipContacts": ["Boss@Example.com"],
             "mutedThreadIds": ["T-9"], "quietHoursEnabled": true, "quietHoursStart": 0, "quietHoursEnd": 360,
             "accountNotifications": {"work": false}, "timeZone": "Europe/Berlin"}
            """
        try Data(json.utf8).write(to: url)
        let value = await SettingsStore(fileURL: url).settings
        #expect(!value.notificationCategoryEnabled(for: .promotions))
        #expect(value.isVIP("boss@example.com"))
        #expect(value.isMuted("T-9"))
        #expect(value.activeQuietHours == QuietHours(start: 0, end: 360))
        #expect(!value.notificationsEnabled(for: "work"))
        #expect(value.timeZone?.identifier == "Europe/Berlin")
    }

    @Test func writesLeaveAValidFileBehind() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        let store = SettingsStore(fileURL: url)
        for index in 0..<20 {
            try await store.addVIPContact("user\(index)@example.com")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(leftovers == ["settings.json"])
        #expect(await SettingsStore(fileURL: url).settings.vipContacts.count == 20)
    }

    @Test func aFileNamingNoZoneFollowsTheMachineAndIsNotPinnedByAWrite() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        try Data(#"{"vipContacts": ["a@b.c"]}"#.utf8).write(to: url)
        let store = SettingsStore(fileURL: url)
        #expect(await store.settings.timeZone == nil)
        try await store.addVIPContact("d@e.f")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(written["timeZone"] == nil)
        #expect(written["vipContacts"] as? [String] == ["a@b.c", "d@e.f"])
    }

    @Test func e21StorePrunesStaleMutedThreadsAndKeepsAnUnchangedFileUntouched() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        let original = #"{"mutedThreadIds": ["T-gone", "T-kept"], "timeZone": "UTC"}"#
        try Data(original.utf8).write(to: url)
        let store = SettingsStore(fileURL: url)
        #expect(try await store.pruneMutedThreads(keeping: ["T-kept", "T-other"]) == ["T-gone"])
        #expect(await SettingsStore(fileURL: url).settings.mutedThreadIds == ["T-kept"])
        let afterPrune = try Data(contentsOf: url)
        #expect(try await store.pruneMutedThreads(keeping: ["T-kept"]).isEmpty)
        #expect(try Data(contentsOf: url) == afterPrune)
    }

    @Test func e21PruningACorruptFileNeverOverwritesIt() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        try Data("{ not json".utf8).write(to: url)
        #expect(try await SettingsStore(fileURL: url).pruneMutedThreads(keeping: []).isEmpty)
        #expect(try Data(contentsOf: url) == Data("{ not json".utf8))
    }

    @Test func e21PruneMutedThreadsKeepsOnlyExistingThreads() {
        var value = settings {
            $0.toggleMuteThread("T-1")
            $0.toggleMuteThread("T-2")
        }
        value.pruneMutedThreads(keeping: ["T-2", "T-3"])
        #expect(value.mutedThreadIds == ["T-2"])
    }
}
