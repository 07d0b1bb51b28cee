import APNsCore
public import Foundation

/// A notification ready to be stored: what to send (``NotificationMessage``) and to whom (``NotificationTargets``),
/// as the outbox keeps them.
public struct NotificationDraft: Sendable, Equatable {
    public enum Kind: String, Sendable { case event, direct }

    public var kind: Kind
    public var type: String
    public var project: ExternalID?
    public var message: NotificationMessage
    public var targets: NotificationTargets
    public var respectPreferences: Bool
    /// Whether deliveries to someone inside their quiet hours wait for the window's end.
    public var respectQuietHours: Bool
    public var sendAt: Date?
    public var expiresAt: Date?
    /// The vote a `new_vote` event records, stored with the notification.
    public var vote: FeedbackVote?
    /// A direct send's tags, sorted.
    public var tags: [NotificationTag] = []
    /// The line its deliveries wait in: the sender's choice, else ``DeliveryLane/default(for:)``.
    public var lane: DeliveryLane

    /// The draft of an event: its payloads by variant and the people its rules name.
    public init(event: Event) {
        kind = .event
        type = event.type.rawValue
        project = event.project
        var payloads: [PayloadVariant: Payload] = [:]
        for variant in EventPayload.variants(for: event) {
            payloads[variant] = EventPayload.payload(for: event, variant: variant)
        }
        message = NotificationMessage(
            payloads: payloads, pushType: .alert, priority: .immediate, event: EventFacts(event))
        targets = NotificationTargets(
            actor: event.actor, submitter: event.submitter, voters: event.voters,
            votersOfFeedback: event.type.audiences.contains(.voters) ? event.feedback.id : nil)
        respectPreferences = true
        respectQuietHours = true
        vote = event.recordedVote
        lane = .default(for: message)
    }

    /// The draft of a direct send.
    public init(direct: DirectNotification) {
        kind = .direct
        type = direct.type
        project = direct.project
        message = NotificationMessage(
            payloads: [.default: direct.payload], pushType: direct.resolvedPushType,
            priority: direct.resolvedPriority, collapseID: direct.collapseID)
        targets = NotificationTargets(userIDs: direct.userIDs, deviceIDs: direct.deviceIDs, project: direct.project)
        respectPreferences = direct.respectPreferences
        respectQuietHours = direct.waitsOutQuietHours
        sendAt = direct.sendAt
        expiresAt = direct.expiration
        tags = direct.tags.sorted()
        lane = direct.lane ?? .default(for: message)
    }
}
