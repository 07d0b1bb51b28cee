import Foundation
import MailNotifier
import Testing

@Suite("mail-notifier sync applies the interactions with earlier banners", .timeLimit(.minutes(1)))
struct MailNotifierInteractionsTests {
    /// The simulated crash: the state file is not written, and the run stops.
    static let crash = RunError.stateFile(path: "state.json", reason: "killed before the state was saved")

    /// A mailbox, settings and state file, and a Herald listing `listing`'s pages; each ``run(_:)`` reads the
    /// files afresh and saves the state as `mail-notifier sync` does.
    final class Setup {
        let directory: TemporaryDirectory
        let server: TestHTTPServer
        let center = RecordingNotificationCenter()

        /// The mailbox holds Carol's unread lunch email and an unrelated unread one; both have banners and the
        /// devices show a badge of 2.
        init(
            listing: InteractionListing, mailbox: Mailbox = Setup.mailbox,
            state: DeliveryState? = DeliveryState(
                delivered: [
                    DeliveredNotification(emailId: "e-lunch", threadId: "T-lunch"),
                    DeliveredNotification(emailId: "e-other", threadId: "T-other"),
                ],
                badgeCount: 2)
        ) throws {
            directory = try TemporaryDirectory()
            server = try TestHTTPServer { listing.reply(to: $0) }
            try JSONEncoder().encode(mailbox).write(to: directory.file("mailbox.json"))
            try Data(#"{"timeZone": "UTC"}"#.utf8).write(to: directory.file("settings.json"))
            try state?.save(to: stateURL)
        }

        static let mailbox = Mailbox(emails: [
            makeEmail(
                "e-lunch", thread: "T-lunch", from: "carol@example.com", subject: "Lunch on Friday",
                received: at(11, 0), messageId: "<lunch@example.com>"),
            makeEmail("e-other", thread: "T-other", received: at(11, 0)),
        ])

        deinit {
            server.stop()
        }

        var stateURL: URL { directory.file("state.json") }
        var mailboxURL: URL { directory.file("mailbox.json") }

        /// The state file as the next run reads it.
        var state: DeliveryState? {
            get throws { try DeliveryState.load(from: stateURL) }
        }

        /// The mailbox file as the next run reads it.
        var mailbox: Mailbox {
            get throws { try JSONDecoder().decode(Mailbox.self, from: Data(contentsOf: mailboxURL)) }
        }

        var mailboxBytes: Data {
            get throws { try Data(contentsOf: mailboxURL) }
        }

        /// One `mail-notifier sync` over `batch`, against `heraldURL` (the listing by default).
        /// - Parameter crashingAtCheckpoint: stops the run at this checkpoint (1 for the first), before the
        ///   state is written, as a `kill -9` would.
        func run(_ batch: [Email] = [], heraldURL: URL? = nil, crashingAtCheckpoint crash: Int? = nil)
            async throws -> MailNotifierRun.Result
        {
            let client = HeraldConnection(
                configuration: HeraldClientConfiguration(
                    baseURL: heraldURL ?? server.baseURL, apiKey: APIKey("k"), timeout: .seconds(5)))
            let stateURL = stateURL
            let checkpoints = Checkpoints()
            let feed = InteractionFeed(client: client, userId: "owner-1") { state throws(RunError) in
                if checkpoints.next() == crash { throw MailNotifierInteractionsTests.crash }
                try state.save(to: stateURL)
            }
            let result = try await MailNotifierRun.run(
                batch: batch, mailbox: MailboxFile(fileURL: mailboxURL),
                settings: SettingsStore(fileURL: directory.file("settings.json")), state: try state, center: center,
                interactions: feed, options: RunOptions(now: at(12, 0), machineTimeZone: utc()))
            try result.state.save(to: stateURL)
            return result
        }
    }

    /// Counts the checkpoints of one run.
    final class Checkpoints: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        func next() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    static func onePage(_ items: String..., next: String = "c-1") -> InteractionListing {
        InteractionListing([nil: .init(items: items, nextCursor: next, hasMore: false)])
    }

    func kinds(_ result: MailNotifierRun.Result) -> [InteractionOutcome.Kind] {
        result.interactions?.outcomes.map(\.kind) ?? []
    }

    @Test func markReadReadsTheThreadWithdrawsItsBannerAndLowersTheBadge() async throws {
        let setup = try Setup(listing: Self.onePage(interactionJSON("i-1", action: "MARK_READ_ACTION")))
        let result = try await setup.run()

        #expect(kinds(result) == [.applied(.markRead, cleanupFailure: nil)])
        #expect(try setup.mailbox.email(id: "e-lunch")?.isRead == true)
        #expect(try setup.mailbox.email(id: "e-other")?.isRead == false)
        #expect(await setup.center.removedIdentifiers == ["email-e-lunch"])
        #expect(await setup.center.badgeCounts == [1])
        #expect(try setup.state?.badgeCount == 1)
        #expect(try setup.state?.interactionCursor == "c-1")
        #expect(!result.hasFailures)
    }

    @Test(arguments: [("ARCHIVE_ACTION", FolderType.archive), ("DELETE_ACTION", .trash)])
    func archiveAndDeleteTakeTheThreadOutOfTheInbox(action: String, folder: FolderType) async throws {
        let setup = try Setup(listing: Self.onePage(interactionJSON("i-1", action: action)))
        let result = try await setup.run()

        let expected = try #require(NotificationAction(rawValue: action))
        #expect(kinds(result) == [.applied(expected, cleanupFailure: nil)])
        #expect(try setup.mailbox.email(id: "e-lunch")?.folderTypes == [folder])
        #expect(await setup.center.removedIdentifiers == ["email-e-lunch"])
        #expect(await setup.center.badgeCounts == [1])
        #expect(try setup.state?.interactionCursor == "c-1")
    }

    @Test func replyIsFiledForSendingUnderItsInteraction() async throws {
        let setup = try Setup(
            listing: Self.onePage(interactionJSON("i-1", action: "REPLY_ACTION", text: "Friday works")))
        let result = try await setup.run()

        #expect(kinds(result) == [.applied(.reply, cleanupFailure: nil)])
        let outbox = try setup.mailbox.outbox
        #expect(outbox.count == 1)
        let reply = try #require(outbox.first)
        #expect(reply.state == .sendNow)
        #expect(reply.interactionId == "i-1")
        #expect(reply.draft.bodyPlain == "Friday works")
        #expect(reply.draft.toAddresses == ["carol@example.com"])
        #expect(reply.draft.inReplyTo == "<lunch@example.com>")
        #expect(await setup.center.removedIdentifiers == ["email-e-lunch"])
        #expect(await setup.center.badgeCounts.isEmpty, "a reply leaves the email unread: the badge is unchanged")
    }

    @Test func opensDismissalsAndUnknownIdentifiersChangeNothingButTheCursor() async throws {
        let setup = try Setup(
            listing: Self.onePage(
                interactionJSON("i-1", action: "opened"), interactionJSON("i-2", action: "dismissed"),
                interactionJSON("i-3", action: "SNOOZE_ACTION"),
                interactionJSON("i-4", action: "com.apple.UNNotificationDefaultActionIdentifier"),
                interactionJSON("i-5", action: "DEFAULT_ACTION"), next: "c-5"))
        let before = try setup.mailboxBytes
        let result = try await setup.run()

        #expect(kinds(result) == Array(repeating: .ignored, count: 5))
        #expect(result.interactions?.outcomes.compactMap(\.warning) == [])
        #expect(try setup.mailboxBytes == before)
        #expect(await setup.center.removed.isEmpty)
        #expect(await setup.center.badgeCounts.isEmpty)
        #expect(try setup.state?.interactionCursor == "c-5")
    }

    @Test func theCursorIsKeptAndReadOnFromPageAfterPageAndRunAfterRun() async throws {
        let setup = try Setup(
            listing: InteractionListing([
                nil: .init(
                    items: [interactionJSON("i-1", action: "MARK_READ_ACTION")], nextCursor: "c+1/=", hasMore: true),
                "c+1/=": .init(
                    items: [interactionJSON("i-2", action: "ARCHIVE_ACTION", emailId: "e-other", threadId: "T-other")],
                    nextCursor: "c-2", hasMore: false),
            ]))
        let first = try await setup.run()
        #expect(kinds(first) == [.applied(.markRead, cleanupFailure: nil), .applied(.archive, cleanupFailure: nil)])
        #expect(try setup.state?.interactionCursor == "c-2")
        #expect(try setup.state?.appliedInteractionIds == [], "a page read to its end needs no ids")

        let second = try await setup.run()
        #expect(kinds(second) == [])
        let listings = InteractionListing.listings(setup.server)
        #expect(listings.map(InteractionListing.since(in:)) == [nil, "c+1/=", "c-2"])
        #expect(listings.allSatisfy { $0.path.contains("userId=owner-1&type=email") })
        #expect(listings.allSatisfy { $0.headers["authorization"] == "Bearer k" })
    }

    /// A crash after the mailbox changed and before the state was saved: the next run reads the same page
    /// and changes nothing, and the reply is not filed a second time.
    @Test func aCrashBeforeTheStateIsSavedAppliesNothingTwice() async throws {
        let setup = try Setup(
            listing: Self.onePage(
                interactionJSON("i-1", action: "MARK_READ_ACTION"),
                interactionJSON(
                    "i-2", action: "REPLY_ACTION", emailId: "e-other", threadId: "T-other", text: "On it")))
        // The first interaction's state is saved; the run dies right after filing the reply.
        await #expect(throws: Self.crash) { try await setup.run(crashingAtCheckpoint: 2) }
        #expect(try setup.state?.interactionCursor == nil)
        #expect(try setup.state?.appliedInteractionIds == ["i-1"])
        let afterCrash = try setup.mailboxBytes
        #expect(try setup.mailbox.outbox.count == 1)
        let removalsBefore = await setup.center.removed.count

        let again = try await setup.run()
        #expect(kinds(again) == [.applied(.reply, cleanupFailure: nil)], "i-1 was recorded as applied")
        #expect(try setup.mailboxBytes == afterCrash)
        #expect(try setup.mailbox.outbox.map(\.interactionId) == ["i-2"])
        #expect(await setup.center.removed.count == removalsBefore + 1, "only the reply's thread again")
        #expect(try setup.state?.interactionCursor == "c-1")
    }

    /// The state still has the old cursor and no applied ids, but the mailbox already shows every action:
    /// read, archived, deleted, the reply filed. Running again is no error and changes nothing.
    @Test func actionsTheMailboxAlreadyShowsAreNoOps() async throws {
        var mailbox = Mailbox(emails: [
            makeEmail("e-a", thread: "T-a", isRead: true), makeEmail("e-b", thread: "T-b", folders: [.archive]),
            makeEmail("e-c", thread: "T-c", folders: [.trash]), makeEmail("e-d", thread: "T-d", isRead: true),
        ])
        let reply = mailbox.saveDraft(
            Draft.reply(to: makeEmail("e-d", thread: "T-d"), text: "Done"), answering: "i-4")
        try mailbox.queueForSending(reply)
        try mailbox.sendNow(reply)
        let setup = try Setup(
            listing: Self.onePage(
                interactionJSON("i-1", action: "MARK_READ_ACTION", emailId: "e-a", threadId: "T-a"),
                interactionJSON("i-2", action: "ARCHIVE_ACTION", emailId: "e-b", threadId: "T-b"),
                interactionJSON("i-3", action: "DELETE_ACTION", emailId: "e-c", threadId: "T-c"),
                interactionJSON("i-4", action: "REPLY_ACTION", emailId: "e-d", threadId: "T-d", text: "Done")),
            mailbox: mailbox, state: DeliveryState(badgeCount: 0))
        let before = try setup.mailboxBytes
        let result = try await setup.run()

        #expect(
            kinds(result) == [
                .applied(.markRead, cleanupFailure: nil), .applied(.archive, cleanupFailure: nil),
                .applied(.delete, cleanupFailure: nil), .applied(.reply, cleanupFailure: nil),
            ])
        #expect(try setup.mailboxBytes == before)
        #expect(await setup.center.badgeCounts.isEmpty)
        #expect(try setup.state?.interactionCursor == "c-1")
    }

    @Test func anEmailGoneFromTheMailboxIsSkippedWithAWarning() async throws {
        let setup = try Setup(
            listing: Self.onePage(
                interactionJSON("i-1", action: "DELETE_ACTION", emailId: "e-gone", threadId: "T-gone"),
                interactionJSON("i-2", action: "MARK_READ_ACTION", emailId: nil),
                interactionJSON("i-3", action: "REPLY_ACTION", text: nil),
                interactionJSON("i-4", action: "MARK_READ_ACTION")))
        let result = try await setup.run()

        let outcomes = try #require(result.interactions?.outcomes)
        #expect(outcomes.map(\.interactionId) == ["i-1", "i-2", "i-3", "i-4"])
        #expect(outcomes.last?.kind == .applied(.markRead, cleanupFailure: nil), "the skips stop nothing")
        let warnings = outcomes.compactMap(\.warning)
        #expect(warnings.count == 3)
        #expect(warnings.first?.contains("e-gone") == true)
        #expect(await setup.center.removedIdentifiers == ["email-e-lunch"])
        #expect(try setup.state?.interactionCursor == "c-1")
        #expect(!result.hasFailures)
    }

    @Test func aHeraldThatCannotBeReadLeavesTheCursorAndTheNewEmailsAreStillHandled() async throws {
        let closed = try ClosedPort()
        let failing = try TestHTTPServer { _ in
            .respond(status: 503, body: #"{"error":"unavailable","message":"busy"}"#)
        }
        defer { failing.stop() }
        let failures: [(URL, HeraldError)] = [
            (closed.url, .unreachable(reason: "connection refused")),
            (failing.baseURL, .rejected(status: 503, code: "unavailable", message: "busy", field: nil)),
        ]
        for (herald, expected) in failures {
            let setup = try Setup(listing: Self.onePage())
            var state = try #require(try setup.state)
            state.interactionCursor = "c-0"
            try state.save(to: setup.stateURL)

            let result = try await setup.run([makeEmail("e-new", thread: "T-new")], heraldURL: herald)
            #expect(result.interactions?.readFailure == expected)
            #expect(result.lines.map(\.decision) == ["notified"])
            #expect(await setup.center.addedEmailIds == ["e-new"])
            #expect(try setup.state?.interactionCursor == "c-0")
            #expect(try setup.state?.delivered.contains { $0.emailId == "e-new" } == true)
            #expect(result.hasFailures, "the exit status says Herald failed")
        }
    }

    @Test func aMailboxThatCannotBeWrittenStopsAtTheInteractionSoTheNextRunRetriesIt() async throws {
        let setup = try Setup(
            listing: Self.onePage(
                interactionJSON("i-1", action: "MARK_READ_ACTION"),
                interactionJSON("i-2", action: "ARCHIVE_ACTION", emailId: "e-other", threadId: "T-other")))
        let mailbox = try MailboxFile(fileURL: setup.mailboxURL)
        // A directory where the file was: the mailbox reads from memory, but every write fails.
        try FileManager.default.removeItem(at: setup.mailboxURL)
        try FileManager.default.createDirectory(at: setup.mailboxURL, withIntermediateDirectories: false)
        let client = HeraldConnection(
            configuration: HeraldClientConfiguration(baseURL: setup.server.baseURL, apiKey: APIKey("k")))
        let state = try #require(try setup.state)

        let result = try await MailNotifierInteractions.apply(
            from: InteractionFeed(client: client, userId: "owner-1") { _ throws(RunError) in },
            mailbox: mailbox, state: state, center: setup.center)

        let outcomes = result.outcomes
        #expect(outcomes.count == 1, "nothing after the failed interaction")
        guard case .failed(.actionFailed(.markRead, _))? = outcomes.first?.kind else {
            Issue.record("expected the mark read to fail, got \(outcomes)")
            return
        }
        #expect(result.hasActionFailure)
        #expect(result.state.interactionCursor == nil)
        #expect(result.state.appliedInteractionIds == [])
    }

    @Test func theFirstLaunchAppliesNothingAndStartsAfterWhatHeraldHolds() async throws {
        let setup = try Setup(
            listing: InteractionListing([
                nil: .init(items: [interactionJSON("i-1", action: "DELETE_ACTION")], nextCursor: "c-1", hasMore: true),
                "c-1": .init(
                    items: [interactionJSON("i-2", action: "MARK_READ_ACTION")], nextCursor: "c-2", hasMore: false),
            ]),
            state: nil)
        let before = try setup.mailboxBytes
        let result = try await setup.run([makeEmail("e-new", thread: "T-new")])

        #expect(kinds(result) == [])
        #expect(result.lines.map(\.reason) == ["first-launch"])
        #expect(try setup.mailbox.email(id: "e-lunch")?.folderTypes == [.inbox])
        #expect(try setup.mailboxBytes != before, "the new email was filed")
        #expect(await setup.center.removed.isEmpty)
        #expect(try setup.state?.interactionCursor == "c-2")
    }

    /// A first launch that cannot read Herald applies nothing, and neither does the next run: it reads on to the
    /// end first, so old taps never act on a mailbox set up after them.
    @Test func aFirstLaunchThatCannotReadHeraldKeepsCatchingUpOnTheNextRun() async throws {
        let closed = try ClosedPort()
        let setup = try Setup(
            listing: InteractionListing([
                nil: .init(items: [interactionJSON("i-1", action: "DELETE_ACTION")], nextCursor: "c-1", hasMore: false)
            ]),
            state: nil)
        let first = try await setup.run([makeEmail("e-new", thread: "T-new")], heraldURL: closed.url)
        #expect(first.interactions?.readFailure != nil)
        #expect(try setup.state?.catchingUpInteractions == true)
        #expect(try setup.state?.interactionCursor == nil)

        let second = try await setup.run()
        #expect(kinds(second) == [])
        #expect(try setup.mailbox.email(id: "e-lunch")?.folderTypes == [.inbox], "the old Delete is not applied")
        #expect(try setup.state?.catchingUpInteractions == false)
        #expect(try setup.state?.interactionCursor == "c-1")
    }
}
