public import Postgres

/// Reads and changes personal settings and per-project overrides.
public struct PreferenceStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Applies `changes` to `user`'s personal settings. - Returns: the updated user, or `nil` if unknown.
    /// - Throws: ``DomainError`` `.invalid` (field `quietHours.timeZone`) for a time zone the database does not know.
    public func updatePersonal(_ user: ExternalID, _ changes: PersonalPreferenceChanges) async throws -> User? {
        var bindings = PostgresBindings()
        bindings.append(user.rawValue)
        var sets = ["updated_at = now()"]
        for (column, value) in changes.assignments {
            bindings.append(value)
            sets.append("\(column) = $\(bindings.count)")
        }
        if let quietHours = changes.quietHours {
            bindings.append(quietHours.enabled)
            sets.append("quiet_hours_enabled = $\(bindings.count)")
            if let window = quietHours.window {
                try await checkTimeZone(window.timeZone)
                for (column, value) in [("quiet_hours_start", window.start), ("quiet_hours_end", window.end)] {
                    bindings.append(value)
                    sets.append("\(column) = $\(bindings.count)")
                }
                bindings.append(window.timeZone)
                sets.append("quiet_hours_time_zone = $\(bindings.count)")
            }
        }
        let rows = try await client.query(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE users u SET \(sets.joined(separator: ", ")) WHERE u.external_id = $1
                    RETURNING \(Directory.userColumns)
                    """, bindings: bindings))
        return try rows.first.map(Directory.decodeUser)
    }

    /// Expansion reads the zone in SQL, so it must be one the database knows, spelt as it spells it.
    ///
    /// Setting the zone for the statement alone loads that one zone and answers its spelling, where listing
    /// `pg_timezone_names` opened and parsed every one of its 1,198 zone files per request (40 ms on a quiet machine,
    /// hundreds of milliseconds on a busy one). ``QuietHoursChange`` has already refused names of another shape,
    /// such as the POSIX rules the database would also take.
    private func checkTimeZone(_ name: String) async throws {
        let refusal = DomainError.invalid(QuietHours.zoneNameRule, field: "quietHours.timeZone")
        let spelling: String
        do {
            spelling = try await client.query("SELECT set_config('TimeZone', \(name), true)").scalar(String.self)
        } catch let error as PostgresError where error.isServerError(.invalidParameterValue) {
            throw refusal
        }
        guard spelling == name else { throw refusal }
    }

    /// The caller's overrides for a project, with the user's personal settings to resolve them against.
    /// - Throws: ``DomainError`` `.notFound` unless the project's notifications reach the user
    ///   (``projectReachesUser``).
    public func projectPreferences(_ user: ExternalID, project: ExternalID) async throws -> ProjectPreferences {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Directory.userColumns), \(unescaped: Self.overrideColumns)
            FROM users u
            JOIN projects pr ON pr.external_id = \(project.rawValue)
            LEFT JOIN project_member_preferences p ON p.user_id = u.id AND p.project_id = pr.id
            WHERE u.external_id = \(user.rawValue) AND \(unescaped: Self.projectReachesUser)
            """)
        guard let row = rows.first else { throw Self.notReached }
        return ProjectPreferences(
            project: project, user: try Directory.decodeUser(row),
            overrides: try Self.decodeOverrides(row, from: Directory.userColumnCount))
    }

    /// Applies `changes` to the caller's overrides for a project, creating the row on first use, in one statement.
    /// - Throws: ``DomainError`` `.notFound` unless the project's notifications reach the user
    ///   (``projectReachesUser``).
    public func updateProjectPreferences(
        _ user: ExternalID, project: ExternalID, _ changes: ProjectOverrideChanges
    ) async throws -> ProjectPreferences {
        var bindings = PostgresBindings()
        bindings.append(user.rawValue)
        bindings.append(project.rawValue)
        var columns: [String] = []
        var values: [String] = []
        for (column, value) in changes.assignments {
            bindings.append(value)
            columns.append(column)
            values.append("$\(bindings.count)::boolean")
        }
        let updates = (columns.map { "\($0) = EXCLUDED.\($0)" } + ["updated_at = now()"]).joined(separator: ", ")
        let rows = try await client.query(
            PostgresQuery(
                unsafeSQL: """
                    WITH reached AS (
                        SELECT u.id AS user_id, pr.id AS project_id FROM users u
                        JOIN projects pr ON pr.external_id = $2
                        WHERE u.external_id = $1 AND \(Self.projectReachesUser)
                    ),
                    p AS (
                        INSERT INTO project_member_preferences AS x
                            (user_id, project_id\(columns.map { ", " + $0 }.joined()))
                        SELECT reached.user_id, reached.project_id\(values.map { ", " + $0 }.joined()) FROM reached
                        ON CONFLICT (user_id, project_id) DO UPDATE SET \(updates)
                        RETURNING *
                    )
                    SELECT \(Directory.userColumns), \(Self.overrideColumns)
                    FROM p JOIN users u ON u.id = p.user_id
                    """, bindings: bindings))
        guard let row = rows.first else { throw Self.notReached }
        return ProjectPreferences(
            project: project, user: try Directory.decodeUser(row),
            overrides: try Self.decodeOverrides(row, from: Directory.userColumnCount))
    }

    static let notReached = DomainError.notFound(
        "no project with this id has you as owner, member, submitter or voter", field: "projectId")

    /// Whether project `pr`'s notifications reach user `u`: the owner, a member, a voter Herald recorded for one of
    /// its feedbacks, or a submitter or voter one of its events named (by user id or email, through
    /// Migrations/0041's index). Anyone they reach may set overrides, which expansion applies to every recipient.
    static let projectReachesUser = """
        (pr.owner_id = u.id
         OR EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = pr.id AND m.user_id = u.id)
         OR EXISTS (SELECT 1 FROM feedback_votes v WHERE v.project_external_id = pr.external_id
                    AND (v.voter_user_id = u.external_id OR v.voter_email = lower(u.email)))
         OR EXISTS (SELECT 1 FROM notifications n WHERE n.kind = 'event' AND n.project_id = pr.id
                    AND notification_audience_keys(n.targets) && ARRAY['u:' || u.external_id, 'e:' || lower(u.email)]))
        """

    static let overrideColumns = """
        p.push_muted, p.push_notify_new_feedback, p.push_notify_new_comments, p.push_notify_votes,
        p.push_notify_status_changes, p.email_muted, p.email_notify_new_feedback, p.email_notify_new_comments
        """

    static func decodeOverrides(_ row: PostgresRow, from start: Int) throws -> ProjectOverrides {
        var overrides = ProjectOverrides()
        overrides.muted = try row.decode(column: start, as: Bool?.self) ?? false
        overrides.newFeedback = try row.decode(column: start + 1, as: Bool?.self)
        overrides.newComments = try row.decode(column: start + 2, as: Bool?.self)
        overrides.votes = try row.decode(column: start + 3, as: Bool?.self)
        overrides.statusChanges = try row.decode(column: start + 4, as: Bool?.self)
        overrides.emailMuted = try row.decode(column: start + 5, as: Bool?.self) ?? false
        overrides.emailNewFeedback = try row.decode(column: start + 6, as: Bool?.self)
        overrides.emailNewComments = try row.decode(column: start + 7, as: Bool?.self)
        return overrides
    }
}

/// One user's view of one project's settings: the overrides and what they resolve to.
public struct ProjectPreferences: Sendable, Equatable {
    public var project: ExternalID
    public var user: User
    public var overrides: ProjectOverrides

    /// Whether each type would reach the user now, by ``PreferenceResolution``.
    public func effective(_ type: EventType) -> Bool {
        PreferenceResolution.shouldNotify(type: type, personal: user.push, overrides: overrides)
    }
}
