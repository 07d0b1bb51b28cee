public import HeraldClient
import OpenAPIRuntime

/// Herald as the notification center: banners, badge updates and removals become pushes to the
/// mailbox owner's devices through the direct-send route.
public struct HeraldNotificationCenter: NotificationCenterProviding {
    /// Custom data key carrying the identifiers a removal push asks the app to withdraw: the banners'
    /// collapse ids, since iOS gives a remote notification its `apns-collapse-id` as identifier.
    public static let removeIdentifiersKey = "removeNotificationIds"
    /// Custom data key carrying a banner's identifier on the device, its collapse id.
    public static let requestIdentifierKey = "notificationId"
    /// The Herald `type` of every email banner: how `mail-notifier` asks Herald for the interactions with its
    /// banners alone.
    public static let bannerType = "email"

    private let client: HeraldConnection
    /// Herald's external id of the mailbox owner, the only recipient.
    public let userId: String

    public init(client: HeraldConnection, userId: String) {
        self.client = client
        self.userId = userId
    }

    public func add(_ content: NotificationContent) async throws(HeraldError) {
        let request = Self.bannerRequest(for: content, userId: userId)
        try await client.send(request, idempotencyKey: request.collapseId)
    }

    public func removeDeliveredNotifications(withIdentifiers identifiers: [NotificationRequestID])
        async throws(HeraldError)
    {
        guard !identifiers.isEmpty else { return }
        try await client.send(Self.removalRequest(for: identifiers, userId: userId))
    }

    public func setBadgeCount(_ count: Int) async throws(HeraldError) {
        try await client.send(Self.badgeRequest(count: count, userId: userId))
    }

    /// An alert push whose collapse id makes a repeat replace the banner, and whose idempotency key
    /// (the same value) lets Herald drop a retried request. Its data names the email, so an interaction
    /// with the banner leads back to it.
    public static func bannerRequest(for content: NotificationContent, userId: String) -> DirectSend {
        let collapseId = CollapseID(content.identifier)
        var data = content.userInfo.dictionary.mapValues(JSONValue.string)
        data[requestIdentifierKey] = .string(collapseId.rawValue)
        return DirectSend(
            userIds: [userId], _type: bannerType,
            alert: .init(title: content.title, subtitle: content.subtitle, body: content.body),
            sound: .case1(content.sound), threadId: content.threadIdentifier.rawValue,
            category: content.categoryIdentifier, data: customData(data), pushType: .alert, priority: ._10,
            collapseId: collapseId.rawValue)
    }

    /// A badge-only push: alert type, no text, no sound. Priority 5, since a badge need not wake the
    /// device at once.
    public static func badgeRequest(count: Int, userId: String) -> DirectSend {
        DirectSend(userIds: [userId], badge: count, pushType: .alert, priority: ._5)
    }

    /// A background push asking the app to withdraw banners, named by the collapse ids they were sent
    /// with. Best effort: iOS throttles background pushes, so a removal may arrive late or never.
    public static func removalRequest(for identifiers: [NotificationRequestID], userId: String) -> DirectSend {
        DirectSend(
            userIds: [userId], contentAvailable: true,
            data: customData([removeIdentifiersKey: .array(identifiers.map { .string(CollapseID($0).rawValue) })]),
            pushType: .background, priority: ._5)
    }

    /// The custom payload keys of a push, as the generated body takes them.
    static func customData(_ values: [String: JSONValue]) -> DirectSend.DataPayload {
        do {
            return .init(
                additionalProperties: try OpenAPIObjectContainer(unvalidatedValue: values.mapValues(\.openAPIValue)))
        } catch {
            // Every JSONValue is one of the container's types.
            preconditionFailure("a JSON value the container refuses: \(error)")
        }
    }
}
