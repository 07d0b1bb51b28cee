import Foundation
import HeraldCore

/// Reads `POST /notifications/{id}/interactions` bodies: `{"deviceId", "action", "text"?}`.
enum InteractionReportRequest {
    static func parse(_ body: JSONObject, notification: UUID, user: ExternalID, scope: AppScope)
        throws(APIError) -> InteractionReport
    {
        try body.allowOnly(["deviceId", "action", "text"])
        guard let device = UUID(uuidString: try body.requiredString("deviceId")) else {
            throw .validation("must be a UUID", field: "deviceId")
        }
        guard let action = InteractionAction(identifier: try body.requiredString("action")) else {
            throw .validation(
                "must be 1 to \(InteractionAction.maximumLength) characters without control characters or line "
                    + "breaks", field: "action")
        }
        let text = try body.string("text")
        if let text, text.utf8.count > InteractionReport.maximumTextBytes {
            throw .validation("must be at most \(InteractionReport.maximumTextBytes) bytes of UTF-8", field: "text")
        }
        return InteractionReport(
            notification: notification, device: device, user: user, scope: scope, action: action, text: text)
    }
}
