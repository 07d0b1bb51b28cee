import Foundation
import Synchronization

/// Apple's broadcast channels as the mock keeps them: per bundle id, each with its message storage policy, up to
/// a limit (Apple's is 10,000 per app and environment).
final class MockChannels: Sendable {
    private struct Storage {
        var channels: [String: [String: Int]] = [:]
        var limit = 10_000
        var disabled: Set<String> = []
    }

    private let storage = Mutex(Storage())

    func setLimit(_ limit: Int) { storage.withLock { $0.limit = limit } }
    func disable(bundleID: String) { _ = storage.withLock { $0.disabled.insert(bundleID) } }
    func isEnabled(bundleID: String) -> Bool { storage.withLock { !$0.disabled.contains(bundleID) } }
    var count: Int { storage.withLock { $0.channels.values.reduce(0) { $0 + $1.count } } }

    /// A new channel's id, or nil at the limit.
    func create(bundleID: String, policy: Int) -> String? {
        storage.withLock { storage in
            guard storage.channels[bundleID, default: [:]].count < storage.limit else { return nil }
            let id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            storage.channels[bundleID, default: [:]][id] = policy
            return id
        }
    }

    func policy(bundleID: String, channel: String) -> Int? { storage.withLock { $0.channels[bundleID]?[channel] } }

    func delete(bundleID: String, channel: String) -> Bool {
        storage.withLock { $0.channels[bundleID]?.removeValue(forKey: channel) != nil }
    }

    func list(bundleID: String) -> [String] { storage.withLock { ($0.channels[bundleID] ?? [:]).keys.sorted() } }
}
