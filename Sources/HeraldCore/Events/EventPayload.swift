public import APNsCore

/// The APNs payload of an event (seed §9.3) with its deep link (seed §9.1).
public enum EventPayload {
    /// `feedbackkit://feedback/{id}`, or `…/comments` for comments.
    public static func actionURL(for event: Event) -> String {
        let feedback = "feedbackkit://feedback/\(event.feedback.id)"
        return event.type == .newComment ? feedback + "/comments" : feedback
    }

    /// The badge: the event's, else the vote count for votes, else 1.
    public static func badge(for event: Event) -> Int {
        if let badge = event.badge { return badge }
        if event.type == .newVote, let count = event.voteCount { return count }
        return 1
    }

    /// The payload for recipients of `variant`.
    public static func payload(for event: Event, variant: PayloadVariant = .default) -> JSONValue {
        let text = EventTemplate(event, variant: variant)
        var root: [String: JSONValue] = [
            "aps": .object([
                "alert": .object(["title": .string(text.title), "body": .string(text.body)]),
                "badge": .int(badge(for: event)),
                "sound": .string("default"),
                "mutable-content": .int(1),
            ]),
            "type": .string(event.type.rawValue),
            "feedbackId": .string(event.feedback.id),
            "projectId": .string(event.project.rawValue),
            "actionUrl": .string(actionURL(for: event)),
        ]
        switch event.type {
        case .newComment:
            if let comment = event.commentID { root["commentId"] = .string(comment) }
        case .newVote:
            if let count = event.voteCount { root["voteCount"] = .int(count) }
        case .statusChange:
            if let new = event.newStatus { root["newStatus"] = .string(new.rawValue) }
            if variant == .default, let old = event.oldStatus { root["oldStatus"] = .string(old.rawValue) }
        case .newFeedback:
            break
        }
        return .object(root)
    }

    /// Every variant the event's recipients can get.
    public static func variants(for event: Event) -> [PayloadVariant] {
        event.type == .statusChange ? [.default, .voter] : [.default]
    }
}
