public import Foundation

/// Owns the notification settings and keeps them in a JSON file, rewritten atomically on every change
/// so a crash never leaves half a file.
///
/// Loading never fails: a missing, unreadable or corrupt file yields the defaults, and the reason goes
/// to the warning handler so an operator can see it.
public actor SettingsStore {
    public typealias WarningHandler = @Sendable (SettingsError) -> Void

    public let fileURL: URL
    public private(set) var settings: NotificationSettings

    /// Loads the settings at `fileURL`.
    /// - Parameter onWarning: receives the reason whenever the defaults had to be used.
    public init(fileURL: URL, onWarning: WarningHandler = { _ in }) {
        self.fileURL = fileURL
        self.settings = Self.load(fileURL, onWarning: onWarning)
    }

    static func load(_ url: URL, onWarning: WarningHandler) -> NotificationSettings {
        let defaults = NotificationSettings()
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) {
                onWarning(.missing(path: url.path))
            } else {
                onWarning(.unreadable(path: url.path, reason: String(describing: error)))
            }
            return defaults
        }
        do {
            return try JSONDecoder().decode(NotificationSettings.self, from: data)
        } catch {
            onWarning(.corrupt(path: url.path, reason: Self.reason(error)))
            return defaults
        }
    }

    /// Applies `change` and persists the result.
    public func update(_ change: (inout NotificationSettings) throws(SettingsError) -> Void) throws(SettingsError) {
        var updated = settings
        try change(&updated)
        try write(updated)
        settings = updated
    }

    /// Forgets muted threads that no longer exist (E-21), writing the file only when one was dropped, so a
    /// run that changes nothing leaves the user's file untouched.
    /// - Returns: the threads unmuted.
    @discardableResult
    public func pruneMutedThreads(keeping existing: Set<ThreadID>) throws(SettingsError) -> Set<ThreadID> {
        let stale = settings.mutedThreadIds.subtracting(existing)
        guard !stale.isEmpty else { return [] }
        try update { $0.pruneMutedThreads(keeping: existing) }
        return stale
    }

    public func notificationCategoryEnabled(for category: AICategory) -> Bool {
        settings.notificationCategoryEnabled(for: category)
    }

    public func toggleMuteThread(_ thread: ThreadID) throws(SettingsError) {
        try update { $0.toggleMuteThread(thread) }
    }

    public func addVIPContact(_ address: String) throws(SettingsError) {
        try update { $0.addVIPContact(address) }
    }

    public func removeVIPContact(_ address: String) throws(SettingsError) {
        try update { $0.removeVIPContact(address) }
    }

    /// Restores every notification preference to its default; the time zone, a fact about where the
    /// user lives rather than a preference, is kept.
    public func resetAll() throws(SettingsError) {
        try update { $0 = NotificationSettings(timeZone: $0.timeZone) }
    }

    private func write(_ value: NotificationSettings) throws(SettingsError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(value).write(to: fileURL, options: .atomic)
        } catch {
            throw .writeFailed(path: fileURL.path, reason: String(describing: error))
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context),
            DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}
