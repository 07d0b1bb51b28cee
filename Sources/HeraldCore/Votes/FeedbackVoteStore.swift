public import Postgres

/// The votes `new_vote` events recorded (``FeedbackVote``), each in its app, which status changes of that app reach;
/// the backend removes them when a vote is withdrawn or its feedback deleted, and they go with their voter's user.
public struct FeedbackVoteStore: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Removes `user`'s vote on the feedback: the one recorded by their id, and one recorded by their email address.
    /// - Returns: how many were removed (0 when none in `scope` was recorded).
    public func removeVote(on feedbackID: String, by user: ExternalID, in scope: AppScope) async throws -> Int {
        try await client.execute(
            """
            DELETE FROM feedback_votes
            WHERE feedback_id = \(feedbackID)
              AND (voter_user_id = \(user.rawValue)
                   OR voter_email = (SELECT lower(email) FROM users WHERE external_id = \(user.rawValue)))
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            """)
    }

    /// Removes every vote recorded for the feedback, in every project.
    /// - Returns: how many were removed.
    public func removeVotes(on feedbackID: String, in scope: AppScope) async throws -> Int {
        try await client.execute(
            """
            DELETE FROM feedback_votes
            WHERE feedback_id = \(feedbackID)
              AND (\(scope.app?.rawValue)::text IS NULL
                  OR app_id = (SELECT a.id FROM apps a WHERE a.external_id = \(scope.app?.rawValue)))
            """)
    }
}
