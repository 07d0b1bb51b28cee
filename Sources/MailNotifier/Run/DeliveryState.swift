public import Foundation

/// What `mail-notifier` remembers between runs: the emails already notified, oldest first, so the same
/// email never notifies twice, and the badge the devices were last sent, so an unchanged one is not sent
/// again. Stored as JSON `{"delivered": [{"emailId", "threadId"}, …], "badgeCount": n}`.
///
/// A missing state file means `mail-notifier` never ran here: that run is the first launch.
public struct DeliveryState: Hashable, Sendable, Codable {
    public var delivered: [DeliveredNotification]
    /// `nil` until Herald accepted a badge; files written before the badge was remembered lack it.
    public var badgeCount: Int?

    public init(delivered: [DeliveredNotification] = [], badgeCount: Int? = nil) {
        self.delivered = delivered
        self.badgeCount = badgeCount
    }

    /// Reads the state file.
    /// - Returns: `nil` when there is no file, i.e. on the first launch.
    /// - Throws: ``RunError/stateFile(path:reason:)`` when the file exists but cannot be read or parsed;
    ///   running on as a first launch would hide banners and resend the badge.
    public static func load(from url: URL) throws(RunError) -> DeliveryState? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(DeliveryState.self, from: Data(contentsOf: url))
        } catch {
            throw .stateFile(path: url.path, reason: String(describing: error))
        }
    }

    /// Writes the state file atomically.
    public func save(to url: URL) throws(RunError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw .stateFile(path: url.path, reason: String(describing: error))
        }
    }
}
