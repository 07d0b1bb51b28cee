public import APNsCore
public import Foundation

/// A notification ready to be stored: what to send (`content`) and to whom (`targets`), as the outbox keeps them.
///
/// `content` holds one rendered payload per ``PayloadVariant`` under `payloads`, plus the APNs options
/// (`pushType`, `priority`, `collapseId`) and, for events, the event's facts under `event`. The delivery engine
/// sends `content.payloads[delivery.variant]`.
public struct NotificationDraft: Sendable, Equatable {
    public enum Kind: String, Sendable { case event, direct }

    public var kind: Kind
    public var type: String
    public var project: ExternalID?
    public var content: JSONValue
    public var targets: JSONValue
    public var respectPreferences: Bool
    public var sendAt: Date?
    public var expiresAt: Date?

    /// The draft of an event: its payloads by variant and the people its rules name.
    public init(event: Event) {
        kind = .event
        type = event.type.rawValue
        project = event.project
        var payloads: [String: JSONValue] = [:]
        for variant in EventPayload.variants(for: event) {
            payloads[variant.rawValue] = EventPayload.payload(for: event, variant: variant)
        }
        var facts: [String: JSONValue] = [
            "feedbackId": .string(event.feedback.id), "feedbackTitle": .string(event.feedback.title),
        ]
        if let count = event.voteCount { facts["voteCount"] = .int(count) }
        if let old = event.oldStatus { facts["oldStatus"] = .string(old.rawValue) }
        if let new = event.newStatus { facts["newStatus"] = .string(new.rawValue) }
        if let comment = event.commentID { facts["commentId"] = .string(comment) }
        content = .object([
            "payloads": .object(payloads), "pushType": .string("alert"), "priority": .int(10),
            "event": .object(facts),
        ])
        var targets: [String: JSONValue] = [:]
        if let actor = event.actor { targets["actorId"] = .string(actor.rawValue) }
        if let submitter = event.submitter { targets["submitter"] = Self.reference(submitter) }
        targets["voters"] = .array(event.voters.map(Self.reference))
        self.targets = .object(targets)
        respectPreferences = true
    }

    /// The draft of a direct send.
    public init(direct: DirectNotification) {
        kind = .direct
        type = direct.type
        project = direct.project
        var content: [String: JSONValue] = [
            "payloads": .object([PayloadVariant.default.rawValue: direct.payload]),
            "pushType": .string(direct.resolvedPushType), "priority": .int(direct.resolvedPriority),
        ]
        if let collapse = direct.collapseID { content["collapseId"] = .string(collapse) }
        self.content = .object(content)
        var targets: [String: JSONValue] = [
            "userIds": .array(direct.userIDs.map { .string($0.rawValue) }),
            "deviceIds": .array(direct.deviceIDs.map { .string($0.uuidString.lowercased()) }),
        ]
        if let project = direct.project { targets["projectId"] = .string(project.rawValue) }
        self.targets = .object(targets)
        respectPreferences = direct.respectPreferences
        sendAt = direct.sendAt
        expiresAt = direct.expiration
    }

    private static func reference(_ person: PersonReference) -> JSONValue {
        switch person {
        case .user(let id): .object(["userId": .string(id.rawValue)])
        case .email(let email): .object(["email": .string(email)])
        }
    }
}
