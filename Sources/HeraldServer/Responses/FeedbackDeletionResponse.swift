import Hummingbird

/// `DELETE /feedback/{feedbackId}`: what Herald forgot of it.
struct FeedbackDeletionResponse: ResponseEncodable {
    var feedbackId: String
    var removedVotes: Int
}
