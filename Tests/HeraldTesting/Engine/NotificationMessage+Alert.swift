public import APNsCore
public import HeraldCore

extension NotificationMessage {
    /// An alert push for every recipient, as tests insert them.
    public static func alert(
        title: String? = nil, body: String? = nil, badge: Int? = nil, sound: Sound? = nil, priority: PushPriority? = nil
    ) -> NotificationMessage {
        NotificationMessage(
            payload: Payload(aps: APS(alert: Alert(title: title, body: body), badge: badge, sound: sound)),
            priority: priority)
    }
}
