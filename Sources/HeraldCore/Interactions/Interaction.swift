public import APNsCore
public import Foundation

/// One thing a person did with a push delivered to their device, with what a consumer needs to act on it: the
/// notification's type, tags, custom data and collapse id.
public struct Interaction: Sendable, Hashable {
    public var id: UUID
    public var notificationID: UUID
    public var deviceID: UUID
    /// The user's external id.
    public var userID: String
    /// The external id of the device's app.
    public var appID: String?
    public var action: InteractionAction
    /// A text-input action's reply.
    public var text: String?
    public var type: String
    public var tags: [String]
    /// The notification's custom payload keys (everything beside `aps`).
    public var data: [String: JSONValue]
    public var collapseID: String?
    public var createdAt: Date
    /// Where a reader that got this one reads on; nil until a listing numbered it.
    public var cursor: InteractionCursor?
}

/// What an app reports: its user did `action` with `notification` on `device`.
public struct InteractionReport: Sendable, Equatable {
    /// The longest reply text recorded, in UTF-8 bytes.
    public static let maximumTextBytes = 4096

    public var notification: UUID
    public var device: UUID
    public var user: ExternalID
    /// An app's admin key acting for the user reports only for devices of its app.
    public var scope: AppScope
    public var action: InteractionAction
    public var text: String?

    public init(
        notification: UUID, device: UUID, user: ExternalID, scope: AppScope, action: InteractionAction, text: String?
    ) {
        self.notification = notification
        self.device = device
        self.user = user
        self.scope = scope
        self.action = action
        self.text = text
    }
}

/// Which interactions a listing returns; nil matches any.
public struct InteractionFilter: Sendable, Hashable {
    public var notificationID: UUID?
    /// A user's external id.
    public var userID: String?
    public var action: InteractionAction?
    public var type: String?
    /// An app's external id: an app's key lists only its own app's.
    public var appID: String?

    public init() {}
}
