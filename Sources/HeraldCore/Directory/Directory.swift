import Foundation
public import Postgres

/// Users, projects and memberships, keyed by the backend's ids. Every write is an idempotent upsert or delete.
public struct Directory: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let userColumns = """
        u.id, u.external_id, u.email, u.name, u.push_notifications_enabled, u.push_notify_new_feedback,
        u.push_notify_new_comments, u.push_notify_votes, u.push_notify_status_changes, u.push_sound_enabled,
        u.push_badge_enabled, u.email_notifications_enabled, u.email_notify_new_feedback, u.email_notify_new_comments,
        u.email_notify_votes, u.email_notify_status_changes, u.created_at, u.updated_at, u.quiet_hours_enabled,
        u.quiet_hours_start::int8, u.quiet_hours_end::int8, u.quiet_hours_time_zone
        """
    /// How many columns ``userColumns`` names, for statements that select more after them.
    static let userColumnCount = 22

    static func decodeUser(_ row: PostgresRow) throws -> User {
        let (id, external, email, name, pushOn, pushFeedback, pushComments, pushVotes, pushStatus, sound, badge) =
            try row.decode((UUID, String, String, String, Bool, Bool, Bool, Bool, Bool, Bool, Bool).self)
        var push = PushPreferences()
        (push.enabled, push.newFeedback, push.newComments, push.votes, push.statusChanges, push.sound, push.badge) =
            (pushOn, pushFeedback, pushComments, pushVotes, pushStatus, sound, badge)
        var mail = EmailPreferences()
        mail.enabled = try row.decode(column: 11, as: Bool.self)
        mail.newFeedback = try row.decode(column: 12, as: Bool.self)
        mail.newComments = try row.decode(column: 13, as: Bool.self)
        mail.votes = try row.decode(column: 14, as: Bool.self)
        mail.statusChanges = try row.decode(column: 15, as: Bool.self)
        var quietHours: QuietHours?
        if let start = try row.decode(column: 19, as: Int?.self), let end = try row.decode(column: 20, as: Int?.self),
            let timeZone = try row.decode(column: 21, as: String?.self)
        {
            quietHours = QuietHours(
                enabled: try row.decode(column: 18, as: Bool.self),
                window: QuietHours.Window(start: start, end: end, timeZone: timeZone))
        }
        return User(
            id: id, externalID: ExternalID(external)!, email: email, name: name, push: push, emailPreferences: mail,
            quietHours: quietHours, createdAt: try row.decode(column: 16, as: Date.self),
            updatedAt: try row.decode(column: 17, as: Date.self))
    }

    // MARK: Users

    /// Creates or updates a user. - Returns: the user and whether it was created.
    /// - Throws: ``DomainError`` `.conflict` when another user has the email (compared case-insensitively);
    ///   `.invalid` (field `userId`) for an id Herald keeps for itself (``ExternalID/isReservedForHerald``).
    public func putUser(_ id: ExternalID, profile: UserProfile) async throws -> (user: User, created: Bool) {
        guard !id.isReservedForHerald else { throw ExternalID.reservedForHerald(field: "userId") }
        do {
            let rows = try await client.query(
                """
                INSERT INTO users AS u (external_id, email, name)
                VALUES (\(id.rawValue), \(profile.email), \(profile.name))
                ON CONFLICT (external_id) DO UPDATE
                SET email = EXCLUDED.email, name = EXCLUDED.name, updated_at = now()
                RETURNING \(unescaped: Self.userColumns), (xmax = 0) AS inserted
                """)
            let row = rows[0]
            return (try Self.decodeUser(row), try row.decode("inserted", as: Bool.self))
        } catch let error as PostgresError where error.isServerError(.uniqueViolation) {
            throw DomainError.conflict("another user has this email address", field: "email")
        }
    }

    /// The user with the backend id `id`, or `nil` (always for an id reserved for Herald).
    public func user(_ id: ExternalID) async throws -> User? {
        guard !id.isReservedForHerald else { return nil }
        let rows = try await client.query(
            "SELECT \(unescaped: Self.userColumns) FROM users u WHERE u.external_id = \(id.rawValue)")
        return try rows.first.map(Self.decodeUser)
    }

    /// Deletes a user with their email address, devices, Live Activity ids, preferences, memberships, deliveries,
    /// log rows and votes.
    /// - Returns: whether the user existed (never for an id reserved for Herald).
    /// - Throws: ``DomainError`` `.conflict` while the user owns a project.
    public func deleteUser(_ id: ExternalID) async throws -> Bool {
        guard !id.isReservedForHerald else { return false }
        do {
            // Votes name their voter by id or email address, not by a reference a cascade could follow.
            return try await client.query(
                """
                WITH gone AS (
                    DELETE FROM users WHERE external_id = \(id.rawValue) RETURNING external_id, lower(email) AS email
                ),
                votes AS (
                    DELETE FROM feedback_votes v USING gone g
                    WHERE v.voter_user_id = g.external_id OR v.voter_email = g.email
                )
                SELECT count(*) FROM gone
                """
            ).scalar(Int.self) > 0
        } catch let error as PostgresError where error.isServerError(.foreignKeyViolation) {
            throw DomainError.conflict(
                "the user owns a project: give it a new owner or delete it first", field: "userId")
        }
    }

    // MARK: Projects

    static let projectColumns = "p.id, p.external_id, p.name, o.external_id, p.created_at, p.updated_at"

    static func decodeProject(_ row: PostgresRow) throws -> Project {
        let (id, external, name, owner, created, updated) =
            try row.decode((UUID, String, String, String, Date, Date).self)
        return Project(
            id: id, externalID: ExternalID(external)!, name: name, ownerID: ExternalID(owner)!, createdAt: created,
            updatedAt: updated)
    }

    /// Creates or updates a project. - Returns: the project and whether it was created.
    /// - Throws: ``DomainError`` `.notFound` (field `ownerId`) when the owner is not a known user; `.invalid` (field
    ///   `ownerId`) for an id Herald keeps for itself.
    public func putProject(_ id: ExternalID, name: String, owner: ExternalID) async throws -> (
        project: Project, created: Bool
    ) {
        guard !owner.isReservedForHerald else { throw ExternalID.reservedForHerald(field: "ownerId") }
        guard (1...256).contains(name.codePointCount) else {
            throw DomainError.invalid("must be 1 to 256 characters", field: "name")
        }
        let rows = try await client.query(
            """
            WITH o AS (SELECT id, external_id FROM users WHERE external_id = \(owner.rawValue)),
            p AS (
                INSERT INTO projects (external_id, name, owner_id)
                SELECT \(id.rawValue), \(name), o.id FROM o
                ON CONFLICT (external_id) DO UPDATE
                SET name = EXCLUDED.name, owner_id = EXCLUDED.owner_id, updated_at = now()
                RETURNING *, (xmax = 0) AS inserted
            )
            SELECT \(unescaped: Self.projectColumns), p.inserted FROM p JOIN o ON o.id = p.owner_id
            """)
        guard let row = rows.first else { throw DomainError.notFound("no user has this id", field: "ownerId") }
        return (try Self.decodeProject(row), try row.decode(column: 6, as: Bool.self))
    }

    /// The project with the backend id `id`, or `nil`.
    public func project(_ id: ExternalID) async throws -> Project? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.projectColumns) FROM projects p JOIN users o ON o.id = p.owner_id
            WHERE p.external_id = \(id.rawValue)
            """)
        return try rows.first.map(Self.decodeProject)
    }

    /// Deletes a project with its memberships and overrides. - Returns: whether it existed.
    public func deleteProject(_ id: ExternalID) async throws -> Bool {
        try await client.execute("DELETE FROM projects WHERE external_id = \(id.rawValue)") > 0
    }

    // MARK: Members

    /// Makes `user` a member of `project`. - Returns: whether the membership is new.
    /// - Throws: ``DomainError`` `.notFound` when the project or the user is unknown; `.invalid` (field `userId`) for
    ///   an id Herald keeps for itself.
    public func putMember(project: ExternalID, user: ExternalID) async throws -> Bool {
        guard !user.isReservedForHerald else { throw ExternalID.reservedForHerald(field: "userId") }
        let rows = try await client.query(
            """
            WITH p AS (SELECT id FROM projects WHERE external_id = \(project.rawValue)),
            u AS (SELECT id FROM users WHERE external_id = \(user.rawValue)),
            added AS (
                INSERT INTO project_members (project_id, user_id) SELECT p.id, u.id FROM p, u
                ON CONFLICT DO NOTHING RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM p), EXISTS (SELECT 1 FROM u), EXISTS (SELECT 1 FROM added)
            """)
        let (projectExists, userExists, added) = try rows[0].decode((Bool, Bool, Bool).self)
        guard projectExists else { throw DomainError.notFound("no project has this id", field: "projectId") }
        guard userExists else { throw DomainError.notFound("no user has this id", field: "userId") }
        return added
    }

    /// Removes a membership and, in the same statement, that member's overrides for the project.
    /// - Returns: whether the membership existed.
    public func deleteMember(project: ExternalID, user: ExternalID) async throws -> Bool {
        let rows = try await client.query(
            """
            WITH removed AS (
                DELETE FROM project_members m USING projects p, users u
                WHERE m.project_id = p.id AND m.user_id = u.id
                  AND p.external_id = \(project.rawValue) AND u.external_id = \(user.rawValue)
                RETURNING m.project_id, m.user_id
            ),
            preferences AS (
                DELETE FROM project_member_preferences x USING removed r
                WHERE x.project_id = r.project_id AND x.user_id = r.user_id
                  AND NOT EXISTS (SELECT 1 FROM projects o WHERE o.id = r.project_id AND o.owner_id = r.user_id)
            )
            SELECT count(*) FROM removed
            """)
        return try rows.scalar(Int.self) > 0
    }
}
