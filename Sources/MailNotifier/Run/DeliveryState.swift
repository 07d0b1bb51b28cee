public import Foundation

/// What `mail-notifier` remembers between runs: the emails already notified, oldest first, so the same
/// email never notifies twice. Stored as JSON `{"delivered": [{"emailId", "threadId"}, …]}`.
public struct DeliveryState: Hashable, Sendable, Codable {
    public var delivered: [DeliveredNotification]

    public init(delivered: [DeliveredNotification] = []) {
        self.delivered = delivered
    }

    /// Reads the state file; a missing file is an empty state (the first run).
    /// - Throws: ``RunError/stateFile(path:reason:)`` when the file exists but cannot be read or parsed;
    ///   running on with an empty state would repeat every notification.
    public static func load(from url: URL) throws(RunError) -> DeliveryState {
        guard FileManager.default.fileExists(atPath: url.path) else { return DeliveryState() }
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
