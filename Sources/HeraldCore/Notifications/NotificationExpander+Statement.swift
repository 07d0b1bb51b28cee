import Foundation
import Postgres

extension NotificationExpander {
    /// Expands the oldest due notification, if there is one, in one statement, prepared once per session. Planned anew
    /// each time, it took about 6 ms even for a small audience: 5,000 votes posted in 18 s on the 2-core development
    /// machine left 3,300 of them to expand for another 20 s; prepared, expansion keeps pace with them.
    struct ExpandNextStatement: PostgresStatement {
        private typealias Target = NotificationTargets.Key
        private typealias Person = PersonReference.Key

        /// What the expansion answers: the notification, how many deliveries and suppressions it made, the
        /// wake-up sent to the delivery engine, and the trace the notification belongs to.
        enum Column: PostgresColumn {
            case notificationID
            case deliveries
            case suppressions
            case notified
            case trace

            var expression: String {
                switch self {
                case .notificationID: "e.id"
                case .trace: "e.trace_context"
                case .deliveries: "(SELECT count(*) FROM inserted)"
                case .suppressions: "(SELECT count(*) FROM suppressed)"
                case .notified: "pg_notify('\(HeraldChannel.deliveries)', e.id::text)::text"
                }
            }
        }

        static let name = "herald_expand_next"

        /// The expansion, from the notification's kind, type and targets:
        /// * events: the audiences of their type (``EventType/audiences``), voters with the `voter` variant: those
        ///   named inline and those the same app recorded for the feedback by earlier `new_vote` events
        ///   (``FeedbackVote``; without an `appId`, the default app's);
        /// * direct sends with a project: its owner and members;
        /// * direct sends: the named users (all their active devices) and the named devices;
        /// * with an `appId`, only that app's devices;
        /// * a push of a service's type (``ServiceTokenKind``: VoIP, widgets, …) goes to the devices' tokens of that
        ///   kind instead of the devices (`token_kind`); each target device without one is suppressed as
        ///   `no_<kind>_token` on its own (`missing`), and a recipient with no device at all as a whole;
        /// * Live Activity starts (`pushToStart`): the push-to-start tokens of that attributes type of the named users'
        ///   and devices' instead of the devices; updates and ends (`activityId`): that activity's tokens of its owner
        ///   (`live_activities`, migration 0030).
        /// Each delivery carries the notification's lane and its device's app, which the claim shares by
        /// (``ClaimShares``). A recipient inside their quiet hours gets deliveries in state `deferred`, due at the
        /// window's end (`herald_quiet_hours_release`, migration 0028), unless the notification does not respect quiet
        /// hours. People named by email match case-insensitively; unknown ones are skipped. Voters are matched through
        /// one index lookup each (the `coalesce` of two subqueries): a join on `external_id = … OR lower(email) = …`
        /// may be planned as a scan of every user per voter, and a status change may have thousands of voters. Each
        /// person counts once (a voter who is also the submitter gets the submitter's text) and the actor never
        /// counts.
        ///
        /// `targets` is read by the keys ``NotificationTargets`` writes, named here through its
        /// ``NotificationTargets/Key``.
        static let sql = """
            WITH n AS (
                SELECT id, kind, type, project_id, project_external_id, targets, respect_preferences, respect_quiet_hours,
                       lane, trace_context,
                       CASE WHEN targets ? \(Target.pushToStart.sqlLiteral) THEN 'push_to_start'
                            WHEN targets ? \(Target.activityId.sqlLiteral) THEN 'activity'
                            WHEN content ->> \(NotificationMessage.CodingKeys.pushType.sqlLiteral)
                                 IN (\(ServiceTokenKind.sqlList))
                            THEN content ->> \(NotificationMessage.CodingKeys.pushType.sqlLiteral)
                            ELSE 'device' END AS token_kind
                FROM notifications
                WHERE state = 'scheduled' AND send_at <= now()
                ORDER BY send_at
                LIMIT 1
                FOR UPDATE SKIP LOCKED
            ),
            candidates (user_id, device_id, variant) AS (
                SELECT pr.owner_id, NULL::uuid, 'default' FROM n JOIN projects pr ON pr.id = n.project_id
                WHERE (n.kind = 'event' AND n.type IN (\(EventType.sqlList(reaching: .projectMembers))))
                   OR (n.kind = 'direct' AND n.targets ? \(Target.projectId.sqlLiteral))
                UNION ALL
                SELECT m.user_id, NULL::uuid, 'default' FROM n JOIN project_members m ON m.project_id = n.project_id
                WHERE (n.kind = 'event' AND n.type IN (\(EventType.sqlList(reaching: .projectMembers))))
                   OR (n.kind = 'direct' AND n.targets ? \(Target.projectId.sqlLiteral))
                UNION ALL
                SELECT u.id, NULL::uuid, 'default' FROM n JOIN users u
                  ON u.external_id = n.targets -> \(Target.submitter.sqlLiteral) ->> \(Person.userId.sqlLiteral)
                  OR lower(u.email) = lower(n.targets -> \(Target.submitter.sqlLiteral) ->> \(Person.email.sqlLiteral))
                WHERE n.kind = 'event' AND n.type IN (\(EventType.sqlList(reaching: .submitter)))
                UNION ALL
                SELECT u.id, NULL::uuid, 'voter'
                FROM n CROSS JOIN LATERAL jsonb_array_elements(n.targets -> \(Target.voters.sqlLiteral)) AS v (person)
                JOIN users u ON u.id = coalesce(
                    (SELECT id FROM users WHERE external_id = v.person ->> \(Person.userId.sqlLiteral)),
                    (SELECT id FROM users WHERE lower(email) = lower(v.person ->> \(Person.email.sqlLiteral))))
                WHERE n.kind = 'event' AND n.type IN (\(EventType.sqlList(reaching: .voters)))
                UNION ALL
                SELECT u.id, NULL::uuid, 'voter'
                FROM n JOIN feedback_votes fv
                  ON fv.feedback_id = n.targets ->> \(Target.votersOfFeedback.sqlLiteral)
                 AND fv.project_external_id = n.project_external_id
                 AND fv.app_id IS NOT DISTINCT FROM (
                     CASE WHEN n.targets ? \(Target.appId.sqlLiteral)
                          THEN (SELECT a.id FROM apps a WHERE a.external_id = n.targets ->> \(Target.appId.sqlLiteral))
                          ELSE (SELECT a.id FROM apps a WHERE a.is_default) END)
                JOIN users u ON u.id = coalesce(
                    (SELECT id FROM users WHERE external_id = fv.voter_user_id),
                    (SELECT id FROM users WHERE lower(email) = fv.voter_email))
                WHERE n.kind = 'event' AND n.type IN (\(EventType.sqlList(reaching: .voters)))
                UNION ALL
                SELECT u.id, NULL::uuid, 'default'
                FROM n CROSS JOIN LATERAL jsonb_array_elements_text(n.targets -> \(Target.userIds.sqlLiteral)) AS t (external_id)
                JOIN users u ON u.external_id = t.external_id
                WHERE n.kind = 'direct'
                UNION ALL
                SELECT d.user_id, d.id, 'default'
                FROM n CROSS JOIN LATERAL jsonb_array_elements_text(n.targets -> \(Target.deviceIds.sqlLiteral)) AS t (device_id)
                JOIN device_tokens d ON d.id = t.device_id::uuid AND d.kind = 'device'
                WHERE n.kind = 'direct'
                UNION ALL
                SELECT d.user_id, d.id, 'default'
                FROM n JOIN device_tokens d
                  ON d.kind = 'activity' AND d.activity_id = n.targets ->> \(Target.activityId.sqlLiteral)
                JOIN live_activities o ON o.activity_id = d.activity_id AND o.user_id = d.user_id
                WHERE n.kind = 'direct'
            ),
            recipients AS (
                SELECT c.user_id,
                       bool_or(c.device_id IS NULL) AS all_devices,
                       array_agg(c.device_id) FILTER (WHERE c.device_id IS NOT NULL) AS device_ids,
                       CASE WHEN bool_or(c.variant = 'default') THEN 'default' ELSE 'voter' END AS variant
                FROM candidates c
                WHERE NOT EXISTS (
                    SELECT 1 FROM n JOIN users a ON a.external_id = n.targets ->> \(Target.actorId.sqlLiteral) WHERE a.id = c.user_id)
                GROUP BY c.user_id
            ),
            decided AS (
                SELECT r.user_id, r.all_devices, r.device_ids, r.variant,
                       \(PreferenceResolution.sqlReason) AS reason,
                       CASE WHEN n.respect_quiet_hours AND u.quiet_hours_enabled
                            THEN herald_quiet_hours_release(
                                u.quiet_hours_start, u.quiet_hours_end, u.quiet_hours_time_zone, now())
                       END AS release_at
                FROM recipients r
                CROSS JOIN n
                JOIN users u ON u.id = r.user_id
                LEFT JOIN project_member_preferences p ON p.user_id = r.user_id AND p.project_id = n.project_id
            ),
            targeted AS (
                SELECT x.user_id, d.id AS device_id, d.app_id, d.environment, x.variant, x.release_at
                FROM decided x JOIN device_tokens d ON d.user_id = x.user_id AND d.is_active CROSS JOIN n
                WHERE x.reason IS NULL
                  AND d.kind = n.token_kind
                  AND (NOT n.targets ? \(Target.pushToStart.sqlLiteral)
                       OR d.attributes_type = n.targets ->> \(Target.pushToStart.sqlLiteral))
                  AND (x.all_devices OR d.id = ANY (x.device_ids) OR d.parent_device_id = ANY (x.device_ids))
                  AND (NOT n.targets ? \(Target.appId.sqlLiteral) OR d.app_id = (
                      SELECT a.id FROM apps a WHERE a.external_id = n.targets ->> \(Target.appId.sqlLiteral)))
            ),
            inserted AS (
                INSERT INTO deliveries
                    (notification_id, user_id, device_token_id, environment, variant, notification_type, state,
                     next_attempt_at, lane, app_id, trace_context)
                SELECT n.id, t.user_id, t.device_id, t.environment, t.variant, n.type,
                       CASE WHEN t.release_at IS NULL THEN 'pending' ELSE 'deferred' END, coalesce(t.release_at, now()),
                       n.lane, t.app_id, n.trace_context
                FROM targeted t CROSS JOIN n
                ON CONFLICT (notification_id, device_token_id) DO NOTHING
                RETURNING 1
            ),
            missing AS (
                SELECT x.user_id, d.id AS device_id
                FROM decided x CROSS JOIN n
                JOIN device_tokens d ON d.user_id = x.user_id AND d.is_active AND d.kind = 'device'
                -- Uncorrelated, so evaluated once: for a push to device tokens the join is never run.
                WHERE (SELECT token_kind FROM n) IN (\(ServiceTokenKind.sqlList)) AND x.reason IS NULL
                  AND (x.all_devices OR d.id = ANY (x.device_ids))
                  AND (NOT n.targets ? \(Target.appId.sqlLiteral) OR d.app_id = (
                      SELECT a.id FROM apps a WHERE a.external_id = n.targets ->> \(Target.appId.sqlLiteral)))
                  AND NOT EXISTS (
                      SELECT 1 FROM device_tokens k
                      WHERE k.parent_device_id = d.id AND k.kind = n.token_kind AND k.is_active)
            ),
            suppressed AS (
                INSERT INTO notification_suppressions (notification_id, user_id, device_token_id, reason)
                SELECT n.id, x.user_id, NULL::uuid,
                       coalesce(x.reason, CASE WHEN n.token_kind IN (\(ServiceTokenKind.sqlList))
                                               THEN 'no_' || n.token_kind || '_token' ELSE 'no_active_device' END)
                FROM decided x CROSS JOIN n
                WHERE x.reason IS NOT NULL
                   OR (NOT EXISTS (SELECT 1 FROM targeted t WHERE t.user_id = x.user_id)
                       AND NOT EXISTS (SELECT 1 FROM missing m WHERE m.user_id = x.user_id))
                UNION ALL
                SELECT n.id, m.user_id, m.device_id, 'no_' || n.token_kind || '_token' FROM missing m CROSS JOIN n
                ON CONFLICT (notification_id, user_id, device_token_id) DO NOTHING
                RETURNING 1
            ),
            expanded AS (
                UPDATE notifications SET state = 'expanded', expanded_at = now(), updated_at = now()
                FROM n WHERE notifications.id = n.id
                RETURNING notifications.id, n.trace_context
            )
            SELECT \(Column.selectList)
            FROM expanded e
            """

        func makeBindings() -> PostgresBindings { PostgresBindings() }

        func decodeRow(_ row: PostgresRow) throws -> Expansion {
            Expansion(
                notificationID: try row.decode(Column.notificationID, as: UUID.self),
                deliveries: try row.decode(Column.deliveries, as: Int.self),
                suppressions: try row.decode(Column.suppressions, as: Int.self),
                trace: try row.decode(Column.trace, as: PostgresJSON?.self).flatMap {
                    try? $0.decode(TraceCarrier.self)
                })
        }
    }
}
