/// Someone named by the backend: by user id, or by email address (an address no user has is skipped).
public enum PersonReference: Sendable, Equatable, Codable {
    case user(ExternalID)
    case email(String)

    /// The stored keys, also read by the expansion statement.
    enum Key: String, CodingKey { case userId, email }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let user = try container.decodeIfPresent(ExternalID.self, forKey: .userId) {
            self = .user(user)
        } else {
            self = .email(try container.decode(String.self, forKey: .email))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .user(let id): try container.encode(id, forKey: .userId)
        case .email(let email): try container.encode(email, forKey: .email)
        }
    }
}

/// The feedback an event is about. Herald keeps its id and title as opaque values.
public struct FeedbackReference: Sendable, Equatable, Codable {
    public var id: String
    public var title: String

    /// - Throws: ``DomainError`` naming `feedback.id` or `feedback.title`.
    public init(id: String, title: String) throws(DomainError) {
        guard Self.isID(id) else { throw .invalid("must be 1 to 256 characters", field: "feedback.id") }
        guard (1...1000).contains(title.codePointCount) else {
            throw .invalid("must be 1 to 1000 characters", field: "feedback.title")
        }
        self.id = id
        self.title = title
    }

    /// Whether `text` can be a feedback id: 1 to 256 characters on one line.
    public static func isID(_ text: String) -> Bool {
        (1...256).contains(text.codePointCount) && !text.containsLineBreak
    }
}

/// Something that happened to feedback, as `POST /events` reports it.
public struct Event: Sendable, Equatable {
    public var type: EventType
    public var project: ExternalID
    public var feedback: FeedbackReference
    /// Who acted; never notified about their own action.
    public var actor: ExternalID?
    public var submitter: PersonReference?
    /// Voters named inline; a status change also reaches every voter recorded for the feedback.
    public var voters: [PersonReference]
    /// Who voted, for `new_vote`; the actor when not given.
    public var voter: PersonReference?
    public var voteCount: Int?
    public var oldStatus: FeedbackStatus?
    public var newStatus: FeedbackStatus?
    public var commentID: String?
    public var badge: Int?

    /// Checks the fields each type needs.
    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public init(
        type: EventType, project: ExternalID, feedback: FeedbackReference, actor: ExternalID? = nil,
        submitter: PersonReference? = nil, voters: [PersonReference] = [], voter: PersonReference? = nil,
        voteCount: Int? = nil,
        oldStatus: FeedbackStatus? = nil, newStatus: FeedbackStatus? = nil, commentID: String? = nil,
        badge: Int? = nil
    ) throws(DomainError) {
        if type == .newVote, voteCount == nil { throw .invalid("required for new_vote", field: "voteCount") }
        if type != .newVote, voter != nil { throw .invalid("only new_vote records a voter", field: "voter") }
        try CountRange.check(voteCount, field: "voteCount")
        if type == .statusChange, newStatus == nil { throw .invalid("required for status_change", field: "newStatus") }
        if let commentID, !(1...256).contains(commentID.codePointCount) {
            throw .invalid("must be 1 to 256 characters", field: "commentId")
        }
        try CountRange.check(badge, field: "badge")
        self.type = type
        self.project = project
        self.feedback = feedback
        self.actor = actor
        self.submitter = submitter
        self.voters = voters
        self.voter = voter
        self.voteCount = voteCount
        self.oldStatus = oldStatus
        self.newStatus = newStatus
        self.commentID = commentID
        self.badge = badge
    }

    /// The vote a `new_vote` records: its voter, else its actor; nil for other types or an anonymous vote.
    public var recordedVote: FeedbackVote? {
        guard type == .newVote, let person = voter ?? actor.map(PersonReference.user) else { return nil }
        return FeedbackVote(feedbackID: feedback.id, voter: person)
    }
}
