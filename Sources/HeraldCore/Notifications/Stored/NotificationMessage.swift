public import APNsCore

/// What a notification sends, as `notifications.content` (jsonb) stores it: the gateway writes it when it accepts a
/// notification and the delivery engine reads it back for every claimed delivery, so both speak this one type.
///
/// One APNs payload per ``PayloadVariant`` (recipients of one event can read different texts), and the headers all
/// of them share. Stored as `{"payloads": {"default": {"aps": …}, "voter": …}, "pushType", "priority",
/// "collapseId", "event"}`. A push relayed by the APNs ingress has no payloads of Herald's: its ``relayed`` push is
/// sent as the client wrote it.
public struct NotificationMessage: Codable, Sendable, Equatable {
    public var payloads: [PayloadVariant: Payload]
    public var pushType: PushType
    public var priority: PushPriority
    public var collapseID: CollapseID?
    /// For events: the facts the payloads were rendered from, kept for reading the outbox.
    public var event: EventFacts?
    /// For pushes an APNs client sent through the ingress: the client's topic, payload and expiration, sent as they
    /// are (``PushTemplate/init(relayed:message:)``).
    public var relayed: RelayedPush?

    public init(
        payloads: [PayloadVariant: Payload], pushType: PushType, priority: PushPriority, collapseID: CollapseID? = nil,
        event: EventFacts? = nil
    ) {
        self.payloads = payloads
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.event = event
    }

    /// A message with one payload for every recipient.
    /// - Parameter priority: Default: Apple's default for the push type.
    public init(
        payload: Payload, pushType: PushType = .alert, priority: PushPriority? = nil, collapseID: CollapseID? = nil
    ) {
        self.init(
            payloads: [.default: payload], pushType: pushType, priority: priority ?? .default(for: pushType),
            collapseID: collapseID)
    }

    /// A push an APNs client sent through the ingress, with its headers as the client gave them.
    /// - Parameter collapseID: The client's `apns-collapse-id`; none is made up when it sent none.
    public init(relayed: RelayedPush, pushType: PushType, priority: PushPriority, collapseID: CollapseID?) {
        self.init(payloads: [:], pushType: pushType, priority: priority, collapseID: collapseID)
        self.relayed = relayed
    }

    enum CodingKeys: String, CodingKey {
        case payloads, pushType, priority, event, relayed
        case collapseID = "collapseId"
    }

    /// The payload recipients of `variant` get; the default one when the message has no such variant.
    public func payload(for variant: PayloadVariant) -> Payload? {
        payloads[variant] ?? payloads[.default]
    }
}

/// The facts of an event a message was rendered from (seed §9.3).
public struct EventFacts: Codable, Sendable, Equatable {
    public var feedbackID: String
    public var feedbackTitle: String
    public var voteCount: Int?
    public var oldStatus: String?
    public var newStatus: String?
    public var commentID: String?

    init(_ event: Event) {
        feedbackID = event.feedback.id
        feedbackTitle = event.feedback.title
        voteCount = event.voteCount
        oldStatus = event.oldStatus?.rawValue
        newStatus = event.newStatus?.rawValue
        commentID = event.commentID
    }

    enum CodingKeys: String, CodingKey {
        case feedbackTitle, voteCount, oldStatus, newStatus
        case feedbackID = "feedbackId"
        case commentID = "commentId"
    }
}
