public import Foundation

/// What a user did with a notification on a device, as the app reported it to Herald and
/// `GET /api/v1/interactions` lists it.
public struct Interaction: Hashable, Sendable {
    public var id: InteractionID
    /// Herald's id of the notification interacted with.
    public var notificationId: HeraldNotificationID
    public var deviceId: String
    /// The external id of the user whose device it was.
    public var userId: String
    public var appId: String?
    /// `opened` (a tap on the notification itself), `dismissed`, or the identifier of the notification action
    /// the user chose.
    public var action: String
    /// What the user typed into a text input action.
    public var text: String?
    /// The notification's type, as it was sent.
    public var type: String
    public var tags: [String]
    /// The notification's custom data, as it was sent.
    public var data: [String: JSONValue]
    public var collapseId: String?
    public var createdAt: Date

    public init(
        id: InteractionID, notificationId: HeraldNotificationID, deviceId: String, userId: String,
        appId: String? = nil, action: String, text: String? = nil, type: String, tags: [String] = [],
        data: [String: JSONValue] = [:], collapseId: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.notificationId = notificationId
        self.deviceId = deviceId
        self.userId = userId
        self.appId = appId
        self.action = action
        self.text = text
        self.type = type
        self.tags = tags
        self.data = data
        self.collapseId = collapseId
        self.createdAt = createdAt
    }
}
