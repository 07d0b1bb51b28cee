import Foundation
import MailNotifier
import Testing

@Suite("mail-notifier decisions (MailNotifierRun)")
struct MailNotifierRunTests {
    /// The settings file of the end-to-end scenario, in the spec's keys.
    static let settingsJSON = """
        {"vipContacts": ["Boss@Example.com"], "mutedThreadIds": ["T-muted"],
         "notifCategoryPreferences": {"Promotions": false}, "quietHoursEnabled": true,
         "quietHoursStart": 1320, "quietHoursEnd": 420, "accountNotifications": {"acct-off": false},
         "timeZone": "UTC"}
        """

    /// A mailbox, settings and state file in a scratch directory, run after run like the command does.
    final class Files {
        let directory: TemporaryDirectory
        let mailbox: MailboxFile
        let settings: SettingsStore
        var state: DeliveryState?

        init(
            mailbox emails: [Email] = [], settings json: String = MailNotifierRunTests.settingsJSON,
            state: DeliveryState? = DeliveryState()
        ) throws {
            directory = try TemporaryDirectory()
            let encoder = JSONEncoder()
            try encoder.encode(Mailbox(emails: emails)).write(to: directory.file("mailbox.json"))
            try Data(json.utf8).write(to: directory.file("settings.json"))
            mailbox = try MailboxFile(fileURL: directory.file("mailbox.json"))
            settings = SettingsStore(fileURL: directory.file("settings.json"))
            self.state = state
        }

        func run(
            _ batch: [Email], options: RunOptions = RunOptions(now: at(12, 0), machineTimeZone: utc()),
            center: RecordingNotificationCenter = RecordingNotificationCenter()
        ) async throws -> MailNotifierRun.Result {
            let result = try await MailNotifierRun.run(
                batch: batch, mailbox: mailbox, settings: settings, state: state, center: center, options: options)
            state = result.state
            return result
        }
    }

    /// One run with a fresh set of files, past the first launch.
    func run(
        _ emails: [Email], options: RunOptions = RunOptions(now: at(12, 0), machineTimeZone: utc()),
        center: RecordingNotificationCenter = RecordingNotificationCenter()
    ) async throws -> MailNotifierRun.Result {
        try await Files().run(emails, options: options, center: center)
    }

    @Test func vipInMutedThreadDuringQuietHoursNotifies() async throws {
        let center = RecordingNotificationCenter()
        let email = makeEmail("vip", thread: "T-muted", from: "boss@example.com", received: at(23, 29))
        let result = try await run(
            [email], options: RunOptions(now: at(23, 30), machineTimeZone: utc()), center: center)
        #expect(result.lines == [line("vip", "notified", "vip")])
        #expect(await center.addedEmailIds == ["vip"])
    }

    @Test func nonVIPDuringQuietHoursIsSuppressedByQuietHours() async throws {
        let result = try await run(
            [makeEmail("late", received: at(23, 29))], options: RunOptions(now: at(23, 30), machineTimeZone: utc()))
        #expect(result.lines == [line("late", "suppressed", "quiet-hours")])
    }

    @Test func promotionsOffSuppressesWithCaseInsensitiveKeys() async throws {
        let center = RecordingNotificationCenter()
        let result = try await run([makeEmail("promo", category: "PROMOTIONS")], center: center)
        #expect(result.lines == [line("promo", "suppressed", "category")])
        #expect(await center.added.isEmpty)
    }

    @Test func sameEmailTwiceAcrossRunsPushesOnce() async throws {
        let center = RecordingNotificationCenter()
        let files = try Files()
        let first = try await files.run([makeEmail("once")], center: center)
        let second = try await files.run([makeEmail("once")], center: center)
        #expect(first.lines == [line("once", "notified", "passed")])
        #expect(second.lines == [line("once", "suppressed", "duplicate")])
        #expect(await center.addedEmailIds == ["once"])
        #expect(second.state.delivered == [DeliveredNotification(emailId: "once", threadId: "T-1")])
    }

    @Test func aMissingStateIsTheFirstLaunchWhichSuppressesEverythingButSendsTheBadge() async throws {
        let center = RecordingNotificationCenter()
        let files = try Files(state: nil)
        let first = try await files.run([makeEmail("a"), makeEmail("b", from: "boss@example.com")], center: center)
        #expect(first.lines == [line("a", "suppressed", "first-launch"), line("b", "suppressed", "first-launch")])
        #expect(first.state == DeliveryState(delivered: [], badgeCount: 2))
        #expect(await center.badgeCounts == [2])
        let second = try await files.run([makeEmail("c")], center: center)
        #expect(second.lines == [line("c", "notified", "passed")])
    }

    @Test func theBadgeCountsTheWholeMailboxAndIsSentOnlyWhenItChanged() async throws {
        let center = RecordingNotificationCenter()
        let earlier = (0..<3).map { makeEmail("old\($0)", thread: "T-old\($0)", received: at(9, 0)) }
        let files = try Files(mailbox: earlier + [makeEmail("archived", folders: [.archive])])
        let first = try await files.run([makeEmail("new")], center: center)
        #expect(first.badge == .updated(4))
        let again = try await files.run([makeEmail("new")], center: center)
        #expect(again.badge == .unchanged(4))
        try await files.mailbox.update { (mailbox: inout Mailbox) throws(MailboxError) in
            try mailbox.markAllRead(inThread: "T-old0")
        }
        let afterReading = try await files.run([], center: center)
        #expect(afterReading.badge == .updated(3))
        #expect(await center.badgeCounts == [4, 3])
        #expect(afterReading.state.badgeCount == 3)
    }

    @Test func theBatchIsFiledInTheMailboxWithoutUndoingWhatHappenedSince() async throws {
        let files = try Files(mailbox: [makeEmail("read", isRead: true)])
        _ = try await files.run([makeEmail("read", isRead: false), makeEmail("new")])
        let stored = try MailboxFile(fileURL: files.directory.file("mailbox.json"))
        let emails = await stored.mailbox.emails
        #expect(emails.map(\.id) == ["read", "new"])
        #expect(emails.first?.isRead == true)
    }

    @Test func e21MutedThreadsWithNoEmailLeftAreUnmutedEachRun() async throws {
        let json = #"{"mutedThreadIds": ["T-muted", "T-gone"], "timeZone": "UTC"}"#
        let files = try Files(mailbox: [makeEmail("m", thread: "T-muted", received: at(9, 0))], settings: json)
        let result = try await files.run([makeEmail("muted", thread: "T-muted")])
        #expect(result.unmutedThreads == ["T-gone"])
        #expect(result.lines == [line("muted", "suppressed", "muted-thread")])
        #expect(
            await SettingsStore(fileURL: files.directory.file("settings.json")).settings.mutedThreadIds == ["T-muted"])
    }

    @Test func quietHoursFollowTheMachinesZoneWhenTheSettingsNameNone() async throws {
        let json = #"{"quietHoursEnabled": true}"#
        let sydney = TimeZone(identifier: "Australia/Sydney")!
        // 12:00 UTC is 23:00 in Sydney: inside the default 22:00–07:00 there.
        let inSydney = try await Files(settings: json).run(
            [makeEmail("a")], options: RunOptions(now: at(12, 0), machineTimeZone: sydney))
        let inUTC = try await Files(settings: json).run(
            [makeEmail("a")], options: RunOptions(now: at(12, 0), machineTimeZone: utc()))
        #expect(inSydney.lines == [line("a", "suppressed", "quiet-hours")])
        #expect(inUTC.lines == [line("a", "notified", "passed")])
    }

    @Test func recencyDependsOnBackgroundFlag() async throws {
        let email = makeEmail("twenty", received: at(11, 40))
        let foreground = try await run([email])
        let background = try await run(
            [email], options: RunOptions(fromBackground: true, now: at(12, 0), machineTimeZone: utc()))
        #expect(foreground.lines == [line("twenty", "suppressed", "recency")])
        #expect(background.lines == [line("twenty", "notified", "passed")])
    }

    @Test func activeFolderAndBatchLimitAreBadgeOnly() async throws {
        let active = try await run(
            [makeEmail("seen")], options: RunOptions(activeFolderType: "INBOX", now: at(12, 0), machineTimeZone: utc()))
        #expect(active.lines == [line("seen", "badge-only", "active-folder")])
        let many = (0..<11).map { makeEmail("m\($0)", received: at(11, 59).addingTimeInterval(-Double($0))) }
        let capped = try await run(many)
        #expect(capped.lines.last == line("m10", "badge-only", "batch-limit"))
        #expect(capped.lines.filter { $0.decision == "notified" }.count == 10)
    }

    @Test func filterNamesAppearAsReasons() async throws {
        let result = try await run([
            makeEmail("off", account: "acct-off"), makeEmail("spam", isSpam: true),
            makeEmail("sent", folders: [.sent]), makeEmail("muted", thread: "T-muted"),
        ])
        #expect(result.lines.map(\.reason) == ["account", "spam", "folder-type", "muted-thread"])
    }

    @Test func failedDeliveryIsReportedAndNotRemembered() async throws {
        let center = RecordingNotificationCenter()
        await center.failAdds(for: ["down"], with: .unreachable(reason: "connection refused"))
        let result = try await run([makeEmail("down")], center: center)
        #expect(result.lines == [line("down", "failed", "herald-unreachable")])
        #expect(result.hasFailures)
        #expect(result.state.delivered.isEmpty)
    }

    @Test func jsonLineHasTheThreeFields() throws {
        let json = line("e1", "notified", "vip").json
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        #expect(object == ["emailId": "e1", "decision": "notified", "reason": "vip"])
        #expect(!json.contains("\n"))
    }

    @Test func stateFileRoundTripsAndMissingFileIsTheFirstLaunch() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("state.json")
        #expect(try DeliveryState.load(from: url) == nil)
        let state = DeliveryState(delivered: [DeliveredNotification(emailId: "a", threadId: "t")], badgeCount: 7)
        try state.save(to: url)
        #expect(try DeliveryState.load(from: url) == state)
        let reading = DeliveryState(
            delivered: [], badgeCount: 1, interactionCursor: "c+1", appliedInteractionIds: ["i-1", "i-2"])
        try reading.save(to: url)
        #expect(try DeliveryState.load(from: url) == reading)
        // Files of earlier versions have no cursor: the interactions are read from the start.
        try Data(#"{"delivered": []}"#.utf8).write(to: url)
        #expect(try DeliveryState.load(from: url) == DeliveryState(delivered: [], badgeCount: nil))
        #expect(try DeliveryState.load(from: url)?.interactionCursor == nil)
        try Data("garbage".utf8).write(to: url)
        #expect(throws: RunError.self) { try DeliveryState.load(from: url) }
    }

    @Test func emailsFileErrorsNameThePath() {
        #expect(throws: RunError.self) { try MailNotifierRun.decodeEmails(Data("{}".utf8), path: "emails.json") }
    }

    func line(_ id: String, _ decision: String, _ reason: String) -> DecisionLine {
        let kind = NotificationDecision.Kind(rawValue: decision)!
        return DecisionLine(NotificationDecision(emailId: EmailID(rawValue: id), reason: Self.reason(reason, kind)))
    }

    static func reason(_ name: String, _ kind: NotificationDecision.Kind) -> NotificationDecision.Reason {
        switch name {
        case "vip": .vip
        case "passed": .passed
        case "first-launch": .firstLaunch
        case "recency": .recency
        case "duplicate": .duplicate
        case "batch-limit": .batchLimit
        case "active-folder": .activeFolder
        case "herald-unreachable": .deliveryFailed(.unreachable(reason: "connection refused"))
        default: .filter(FilterName(rawValue: name))
        }
    }
}
