import Foundation
import MailNotifier

/// One interaction as Herald lists it, reported on the banner `HeraldNotificationCenter` sent for `emailId`.
func interactionJSON(
    _ id: String, action: String, emailId: String? = "e-lunch", threadId: String = "T-lunch", text: String? = nil
) -> String {
    var data: [String: String] = ["threadId": threadId, "accountId": "acct-1", "fromAddress": "carol@example.com"]
    if let emailId {
        data["emailId"] = emailId
        data["notificationId"] = "email-\(emailId)"
    }
    let object: [String: Any] = [
        "id": id, "notificationId": "7f1c2a9e-0000-4000-8000-\(String(repeating: "0", count: 12))",
        "deviceId": "5d1e0c3b-0000-4000-8000-000000000001", "userId": "owner-1", "appId": NSNull(),
        "action": action, "text": text.map { $0 as Any } ?? NSNull(), "type": "email", "tags": [String](),
        "data": data, "collapseId": emailId.map { "email-\($0)" as Any } ?? NSNull(),
        "createdAt": "2026-11-26T18:00:00.123Z",
    ]
    // A dictionary of strings, arrays and nulls always serializes.
    return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
}

/// Herald's `GET /api/v1/interactions` over a fixed list of pages, each found by the `since` it answers
/// (`nil` for a listing from the start). A cursor it does not know lists nothing and hands itself back,
/// as Herald does when nothing new has been recorded. Every other request is accepted as a send.
struct InteractionListing: Sendable {
    struct Page: Sendable {
        let items: [String]
        let nextCursor: String
        let hasMore: Bool
    }

    let pages: [String?: Page]

    init(_ pages: [String?: Page]) {
        self.pages = pages
    }

    func reply(to request: RecordedRequest) -> TestHTTPReply {
        guard request.path.hasPrefix("/api/v1/interactions") else {
            return .respond(status: 202, body: #"{"id":"7f1c2a9e-0000-4000-8000-000000000002"}"#)
        }
        let since = Self.since(in: request)
        let page = pages[since] ?? Page(items: [], nextCursor: since ?? "start", hasMore: false)
        let body =
            #"{"items": [\#(page.items.joined(separator: ","))], "nextCursor": "\#(page.nextCursor)", "#
            + #""hasMore": \#(page.hasMore)}"#
        return .respond(status: 200, body: body)
    }

    /// The request's `since`, percent-decoded.
    static func since(in request: RecordedRequest) -> String? {
        URLComponents(string: request.path)?.queryItems?.first { $0.name == "since" }?.value
    }

    /// The requests that listed interactions, in order.
    static func listings(_ server: TestHTTPServer) -> [RecordedRequest] {
        server.requests.filter { $0.path.hasPrefix("/api/v1/interactions") }
    }
}
