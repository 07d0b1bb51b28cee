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
