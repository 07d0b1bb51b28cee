import Foundation
import HeraldCore

/// Reads `POST /events` bodies into an ``Event``.
enum EventRequest {
    static func parse(_ body: JSONObject) throws(APIError) -> Event {
        try body.allowOnly([
            "type", "projectId", "feedback", "actorId", "submitter", "voters", "voter", "voteCount", "oldStatus",
            "newStatus", "commentId", "badge", "appId", "expiration",
        ])
        guard let type = EventType(rawValue: try body.requiredString("type")) else {
            throw .validation("must be new_feedback, new_comment, new_vote or status_change", field: "type")
        }
        let project = try body.requiredExternalID("projectId")
        guard let feedbackObject = try body.object("feedback") else {
            throw .validation("is required", field: "feedback")
        }
        try feedbackObject.allowOnly(["id", "title"])
        let feedbackID = try feedbackObject.requiredString("id")
        let title = try feedbackObject.requiredString("title")
        let submitter = try body.object("submitter").map { (object) throws(APIError) in try person(object) }
        var voters: [PersonReference] = []
        // No cap beyond the body's size: a status change may name every voter of popular feedback.
        for (index, value) in (try body.array("voters", maximum: .max) ?? []).enumerated() {
            voters.append(try person(try JSONObject(value, path: "voters[\(index)]")))
        }
        let voter = try body.object("voter").map { (object) throws(APIError) in try person(object) }
        let oldStatus = try status(body, "oldStatus")
        let newStatus = try status(body, "newStatus")
        let actor = try body.externalID("actorId")
        let voteCount = try body.integer("voteCount")
        let commentID = try body.string("commentId")
        let badge = try body.integer("badge")
        return try JSONObject.domain { () throws(DomainError) in
            try Event(
                type: type, project: project, feedback: try FeedbackReference(id: feedbackID, title: title),
                actor: actor, submitter: submitter, voters: voters, voter: voter, voteCount: voteCount,
                oldStatus: oldStatus,
                newStatus: newStatus, commentID: commentID, badge: badge)
        }
    }

    /// The event's `expiration`: when Apple may stop trying to deliver its pushes. Without one they expire at once.
    static func expiration(_ body: JSONObject, now: Date = Date()) throws(APIError) -> Date? {
        guard let expiration = try body.date("expiration") else { return nil }
        guard expiration > now else { throw .validation("must be in the future", field: "expiration") }
        return expiration
    }

    /// `{"userId": …}` or `{"email": …}`, exactly one.
    static func person(_ object: JSONObject) throws(APIError) -> PersonReference {
        try object.allowOnly(["userId", "email"])
        switch (try object.externalID("userId"), try object.string("email")) {
        case (let id?, nil): return .user(id)
        case (nil, let email?):
            guard email.contains("@"), email.codePointCount <= 254 else {
                throw .validation("must be an email address", field: object.field("email"))
            }
            return .email(email)
        default: throw .validation("give exactly one of userId and email", field: object.path)
        }
    }

    private static func status(_ body: JSONObject, _ key: String) throws(APIError) -> FeedbackStatus? {
        guard let text = try body.string(key) else { return nil }
        guard let status = FeedbackStatus(text) else {
            throw .validation("must be a status like in_progress", field: key)
        }
        return status
    }
}
