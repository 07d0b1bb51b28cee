import MailNotifier
import Testing

@Suite("NotificationContentBuilder (NOTIF-04, NOTIF-05, AC-N-03, AC-N-04)")
struct NotificationContentBuilderTests {
    let email = makeEmail(
        "E-1", thread: "T-7", account: "acct-9", from: "john@example.com", name: "John Doe",
        subject: "Meeting Tomorrow",
        snippet:
            "Hi team, let's discuss the Q1 budget review next week. "
            + "Please bring the spreadsheets and any notes from last time."
    )

    @Test func acN03TitleIsTheSenderName() {
        #expect(NotificationContentBuilder.build(from: email).title == "John Doe")
    }

    @Test func e01NilNameFallsBackToAddress() {
        #expect(NotificationContentBuilder.build(from: makeEmail(name: nil)).title == "john@example.com")
    }

    @Test func acN03SubtitleIsTheSubject() {
        #expect(NotificationContentBuilder.build(from: email).subtitle == "Meeting Tomorrow")
    }

    @Test func e03BodyIsTheFirstHundredCharacters() {
        let body = NotificationContentBuilder.build(from: email).body
        #expect(body.count == 100)
        #expect(email.snippet!.hasPrefix(body))
        #expect(NotificationContentBuilder.build(from: makeEmail(snippet: "short")).body == "short")
    }

    @Test func e02NilSnippetGivesEmptyBody() {
        #expect(NotificationContentBuilder.build(from: makeEmail(snippet: nil)).body == "")
    }

    @Test func bodyNeverSplitsAGraphemeCluster() {
        let snippet = String(repeating: "a", count: 99) + "👨‍👩‍👧" + "tail"
        let body = NotificationContentBuilder.build(from: makeEmail(snippet: snippet)).body
        #expect(body.count == 100)
        #expect(body.hasSuffix("👨‍👩‍👧"))
    }

    @Test func acN03SoundAndCategory() {
        let content = NotificationContentBuilder.build(from: email)
        #expect(content.sound == "default")
        #expect(content.categoryIdentifier == "EMAIL_NOTIFICATION")
    }

    @Test func acN04ThreadIdentifierIsTheThreadId() {
        let first = NotificationContentBuilder.build(from: makeEmail("a", thread: "T-1"))
        let second = NotificationContentBuilder.build(from: makeEmail("b", thread: "T-1"))
        let other = NotificationContentBuilder.build(from: makeEmail("c", thread: "T-2"))
        #expect(first.threadIdentifier == "T-1")
        #expect(first.threadIdentifier == second.threadIdentifier)
        #expect(first.threadIdentifier != other.threadIdentifier)
    }

    @Test func acN03UserInfoHasAllKeys() {
        let userInfo = NotificationContentBuilder.build(from: email).userInfo.dictionary
        #expect(
            userInfo == [
                "emailId": "E-1", "threadId": "T-7", "accountId": "acct-9", "fromAddress": "john@example.com",
            ])
        #expect(NotificationUserInfo(dictionary: userInfo)?.emailId == "E-1")
        #expect(NotificationUserInfo(dictionary: ["emailId": "x"]) == nil)
    }

    @Test func acN03RequestIdentifier() {
        #expect(NotificationContentBuilder.build(from: email).identifier.rawValue == "email-E-1")
    }
}
