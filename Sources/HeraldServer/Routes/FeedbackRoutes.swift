import HeraldCore
import Hummingbird

/// Seed 004 §5.2: the backend withdraws a recorded vote, or all of a feedback's votes when it deletes the feedback,
/// so later status changes no longer reach those voters.
struct FeedbackRoutes {
    let services: HeraldServices

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/feedback/{feedbackId}/votes/{userId}", method: .delete) { _, context in
            _ = try context.requireAPIKey(.send)
            let removed = try await services.votes.removeVote(
                on: try context.feedbackID(), by: try context.externalID("userId"), in: context.appScope)
            guard removed > 0 else { throw APIError.notFound("no vote of this user is recorded", field: "userId") }
            return Response(status: .noContent)
        }
        router.on("/api/v1/feedback/{feedbackId}", method: .delete) { _, context in
            _ = try context.requireAPIKey(.send)
            let feedback = try context.feedbackID()
            let removed = try await services.votes.removeVotes(on: feedback, in: context.appScope)
            return FeedbackDeletionResponse(feedbackId: feedback, removedVotes: removed)
        }
    }
}
