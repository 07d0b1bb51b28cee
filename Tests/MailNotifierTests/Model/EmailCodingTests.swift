import Foundation
import MailNotifier
import Testing

@Suite("Email JSON")
struct EmailCodingTests {
    @Test func decodesTheSpecFieldNames() throws {
        let json = """
            {"id": "e1", "threadId": "t1", "accountId": "a1", "fromAddress": "x@y.z", "fromName": "X",
             "subject": "S", "snippet": "body", "dateReceived": "2026-02-19T11:59:00Z", "isRead": true,
             "isSpam": false, "aiCategory": "Promotions", "folderTypes": ["INBOX", "starred"]}
            """
        let email = try JSONDecoder().decode(Email.self, from: Data(json.utf8))
        #expect(email.id == "e1")
        #expect(email.threadId == "t1")
        #expect(email.accountId == "a1")
        #expect(email.fromName == "X")
        #expect(email.dateReceived == noon.addingTimeInterval(-60))
        #expect(email.isRead)
        #expect(email.aiCategory == .promotions)
        #expect(email.folderTypes == [.inbox, .starred])
    }

    @Test func optionalFieldsDefault() throws {
        let json =
            #"{"id": "e1", "threadId": "t1", "accountId": "a1", "fromAddress": "x@y.z", "#
            + #""dateReceived": "2026-02-19T12:00:00.250+01:00"}"#
        let email = try JSONDecoder().decode(Email.self, from: Data(json.utf8))
        #expect(email.fromName == nil)
        #expect(email.snippet == nil)
        #expect(!email.isRead && !email.isSpam)
        #expect(email.folderTypes.isEmpty)
        #expect(email.dateReceived == noon.addingTimeInterval(-3600 + 0.25))
    }

    @Test func badDateIsAnError() {
        let json =
            #"{"id": "e1", "threadId": "t1", "accountId": "a1", "fromAddress": "x", "dateReceived": "yesterday"}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Email.self, from: Data(json.utf8))
        }
    }

    @Test func roundTrips() throws {
        let email = makeEmail(category: .social, folders: [.inbox, .starred], messageId: "<m>")
        let decoded = try JSONDecoder().decode(Email.self, from: JSONEncoder().encode(email))
        #expect(decoded == email)
    }
}
