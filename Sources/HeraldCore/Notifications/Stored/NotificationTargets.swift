public import Foundation

/// Whom a notification names, as `notifications.targets` (jsonb) stores it. The expansion statement
/// (``NotificationExpander``) reads these keys by the names in ``Key``, so the Swift type and the SQL share one
/// spelling; a test checks that every key the statement reads is one this type writes.
///
/// Events name an actor, a submitter and voters; their project's audience comes from the event type. Direct sends
/// name users, devices and a project whose owner and members all receive it.
public struct NotificationTargets: Codable, Sendable, Equatable {
    /// Who acted; never notified about their own action.
    public var actor: ExternalID?
    public var submitter: PersonReference?
    /// The voters of a status change; they get the ``PayloadVariant/voter`` text.
    public var voters: [PersonReference]
    /// A status change's feedback: every voter recorded for it in the notification's project is reached too, with
    /// the ``PayloadVariant/voter`` text.
    public var votersOfFeedback: String?
    /// Users reached on all their active devices.
    public var userIDs: [ExternalID]
    /// Devices reached one by one (if active and their user's preferences allow).
    public var deviceIDs: [UUID]
    /// A direct send's project: its owner and members are reached.
    public var project: ExternalID?
    /// Only devices of this app are reached; nil: every app's.
    public var app: ExternalID?
    /// A Live Activity start: the named users' and devices' push-to-start tokens of this attributes type are
    /// reached instead of their devices.
    public var pushToStart: ActivityAttributesType?
    /// A Live Activity update or end: the tokens of this running activity are reached.
    public var activity: ExternalID?

    public init(
        actor: ExternalID? = nil, submitter: PersonReference? = nil, voters: [PersonReference] = [],
        votersOfFeedback: String? = nil, userIDs: [ExternalID] = [], deviceIDs: [UUID] = [], project: ExternalID? = nil,
        app: ExternalID? = nil,
        pushToStart: ActivityAttributesType? = nil, activity: ExternalID? = nil
    ) {
        self.app = app
        self.pushToStart = pushToStart
        self.activity = activity
        self.actor = actor
        self.submitter = submitter
        self.voters = voters
        self.votersOfFeedback = votersOfFeedback
        self.userIDs = userIDs
        self.deviceIDs = deviceIDs
        self.project = project
    }

    /// The stored keys.
    public enum Key: String, CodingKey, CaseIterable {
        case actorId, submitter, voters, votersOfFeedback, userIds, deviceIds, projectId, appId, pushToStart, activityId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        actor = try container.decodeIfPresent(ExternalID.self, forKey: .actorId)
        submitter = try container.decodeIfPresent(PersonReference.self, forKey: .submitter)
        voters = try container.decodeIfPresent([PersonReference].self, forKey: .voters) ?? []
        votersOfFeedback = try container.decodeIfPresent(String.self, forKey: .votersOfFeedback)
        userIDs = try container.decodeIfPresent([ExternalID].self, forKey: .userIds) ?? []
        deviceIDs = try container.decodeIfPresent([UUID].self, forKey: .deviceIds) ?? []
        project = try container.decodeIfPresent(ExternalID.self, forKey: .projectId)
        app = try container.decodeIfPresent(ExternalID.self, forKey: .appId)
        pushToStart = try container.decodeIfPresent(ActivityAttributesType.self, forKey: .pushToStart)
        activity = try container.decodeIfPresent(ExternalID.self, forKey: .activityId)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(actor, forKey: .actorId)
        try container.encodeIfPresent(submitter, forKey: .submitter)
        if !voters.isEmpty { try container.encode(voters, forKey: .voters) }
        try container.encodeIfPresent(votersOfFeedback, forKey: .votersOfFeedback)
        if !userIDs.isEmpty { try container.encode(userIDs, forKey: .userIds) }
        // PostgreSQL prints UUIDs in lowercase; stored the same way, they compare as text too.
        if !deviceIDs.isEmpty { try container.encode(deviceIDs.map { $0.uuidString.lowercased() }, forKey: .deviceIds) }
        try container.encodeIfPresent(project, forKey: .projectId)
        try container.encodeIfPresent(app, forKey: .appId)
        try container.encodeIfPresent(pushToStart, forKey: .pushToStart)
        try container.encodeIfPresent(activity, forKey: .activityId)
    }
}

extension CodingKey {
    /// The key as an SQL string literal, for jsonb operators (`targets -> 'voters'`).
    var sqlLiteral: String { SQLText.literal(stringValue) }
}
