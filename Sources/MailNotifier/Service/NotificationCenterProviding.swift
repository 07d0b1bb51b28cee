/// Where banners go. In VaultMail this was the device's notification center; here it is Herald, which
/// forwards them to the user's devices, so every call can fail with a ``HeraldError``.
public protocol NotificationCenterProviding: Sendable {
    /// Shows the banner; posting the same identifier again replaces the earlier one.
    func add(_ content: NotificationContent) async throws(HeraldError)

    /// Withdraws delivered banners. Best effort: a device may receive the request late or not at all.
    func removeDeliveredNotifications(withIdentifiers identifiers: [NotificationRequestID]) async throws(HeraldError)

    /// Sets the app icon's badge.
    func setBadgeCount(_ count: Int) async throws(HeraldError)
}
