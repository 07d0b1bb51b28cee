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
    public static func payload(for event: Event, variant: PayloadVariant = .default) -> Payload {
        let text = EventTemplate(event, variant: variant)
        let aps = APS(
            alert: Alert(title: text.title, body: text.body), badge: badge(for: event), sound: .default,
            mutableContent: true)
        var custom: [String: JSONValue] = [
            "type": .string(event.type.rawValue),
            "feedbackId": .string(event.feedback.id),
            "projectId": .string(event.project.rawValue),
            "actionUrl": .string(actionURL(for: event)),
        ]
        switch event.type {
        case .newComment:
            if let comment = event.commentID { custom["commentId"] = .string(comment) }
        case .newVote:
            if let count = event.voteCount { custom["voteCount"] = .int(count) }
        case .statusChange:
            if let new = event.newStatus { custom["newStatus"] = .string(new.rawValue) }
            if variant == .default, let old = event.oldStatus { custom["oldStatus"] = .string(old.rawValue) }
        case .newFeedback:
            break
        }
        return Payload(aps: aps, custom: custom)
    }

    /// Every variant the event's recipients can get.
    public static func variants(for event: Event) -> [PayloadVariant] {
        event.type == .statusChange ? [.default, .voter] : [.default]
    }
}
