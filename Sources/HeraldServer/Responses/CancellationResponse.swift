import HeraldCore
import Hummingbird

/// `DELETE /notifications/{id}`: what was stopped.
struct CancellationResponse: ResponseEncodable {
    var id: String
    var state = "canceled"
    var previousState: String
    var canceledDeliveries: Int

    init(id: String, _ cancellation: NotificationCancellation) {
        self.id = id
        previousState = cancellation.previousState
        canceledDeliveries = cancellation.canceledDeliveries
    }
}

/// `DELETE /notifications?tag=`: how much of the group was stopped.
struct GroupCancellationResponse: ResponseEncodable {
    var tag: String
    var userId: String?
    var canceledNotifications: Int
    var canceledDeliveries: Int
}
