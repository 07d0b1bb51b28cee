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

    func loadSettings() throws -> NotificationSettings {
        try JSONDecoder().decode(NotificationSettings.self, from: Data(Self.settingsJSON.utf8))
    }

    func run(
        _ emails: [Email], state: DeliveryState = DeliveryState(), options: RunOptions = RunOptions(now: at(12, 0)),
        center: RecordingNotificationCenter = RecordingNotificationCenter()
    ) async throws -> MailNotifierRun.Result {
        try await MailNotifierRun.run(
            emails: emails, settings: loadSettings(), state: state, center: center, options: options)
    }

    @Test func vipInMutedThreadDuringQuietHoursNotifies() async throws {
        let center = RecordingNotificationCenter()
        let email = makeEmail("vip", thread: "T-muted", from: "boss@example.com", received: at(23, 29))
        let result = try await run([email], options: RunOptions(now: at(23, 30)), center: center)
        #expect(result.lines == [line("vip", "notified", "vip")])
        #expect(await center.addedEmailIds == ["vip"])
    }

    @Test func nonVIPDuringQuietHoursIsSuppressedByQuietHours() async throws {
        let result = try await run([makeEmail("late", received: at(23, 29))], options: RunOptions(now: at(23, 30)))
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
        let first = try await run([makeEmail("once")], center: center)
        let second = try await run([makeEmail("once")], state: first.state, center: center)
        #expect(first.lines == [line("once", "notified", "passed")])
        #expect(second.lines == [line("once", "suppressed", "duplicate")])
        #expect(await center.addedEmailIds == ["once"])
        #expect(second.state.delivered == [DeliveredNotification(emailId: "once", threadId: "T-1")])
    }

    @Test func firstLaunchSuppressesEverything() async throws {
        let result = try await run(
            [makeEmail("a"), makeEmail("b", from: "boss@example.com")],
            options: RunOptions(firstLaunch: true, now: at(12, 0)))
        #expect(result.lines == [line("a", "suppressed", "first-launch"), line("b", "suppressed", "first-launch")])
        #expect(result.state.delivered.isEmpty)
    }

    @Test func recencyDependsOnBackgroundFlag() async throws {
        let email = makeEmail("twenty", received: at(11, 40))
        let foreground = try await run([email])
        let background = try await run([email], options: RunOptions(fromBackground: true, now: at(12, 0)))
        #expect(foreground.lines == [line("twenty", "suppressed", "recency")])
        #expect(background.lines == [line("twenty", "notified", "passed")])
    }

    @Test func activeFolderAndBatchLimitAreBadgeOnly() async throws {
        let active = try await run([makeEmail("seen")], options: RunOptions(activeFolderType: "INBOX", now: at(12, 0)))
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

    @Test func stateFileRoundTripsAndMissingFileIsEmpty() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("state.json")
        #expect(try DeliveryState.load(from: url) == DeliveryState())
        let state = DeliveryState(delivered: [DeliveredNotification(emailId: "a", threadId: "t")])
        try state.save(to: url)
        #expect(try DeliveryState.load(from: url) == state)
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
