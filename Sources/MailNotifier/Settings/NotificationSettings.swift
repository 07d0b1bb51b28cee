public import Foundation

/// The user's notification preferences (VaultMail NOTIF-23), as one value the filters read.
///
/// The JSON form uses the spec's keys: `notifCategoryPreferences`, `vipContacts`, `mutedThreadIds`,
/// `quietHoursEnabled`, `quietHoursStart`, `quietHoursEnd`, plus `accountNotifications` (account id →
/// bool) and `timeZone` (an IANA identifier; absent: the machine's zone). Every key is optional; an absent key
/// means the default.
public struct NotificationSettings: Hashable, Sendable {
    /// Per-account switches; an account without an entry is on.
    public var accountNotifications: [AccountID: Bool]
    /// Per-category switches keyed by lowercased category; a category without an entry is on.
    public internal(set) var categoryPreferences: [AICategory: Bool]
    /// Lowercased sender addresses whose emails always notify.
    public internal(set) var vipContacts: Set<String>
    public internal(set) var mutedThreadIds: Set<ThreadID>
    public var quietHoursEnabled: Bool
    /// Minutes since midnight; `nil` means "never set" (22:00 applies), which differs from 0 (midnight).
    public internal(set) var quietHoursStart: Int?
    /// Minutes since midnight; `nil` means "never set" (07:00 applies).
    public internal(set) var quietHoursEnd: Int?
    /// The zone quiet hours are read in, when the user named one; `nil` follows the machine's zone, read
    /// at each batch, so moving the machine moves quiet hours with it.
    public var timeZone: TimeZone?

    /// The defaults of a fresh install: everything on, no VIPs, nothing muted, quiet hours off, the
    /// machine's time zone.
    public init(timeZone: TimeZone? = nil) {
        self.accountNotifications = [:]
        self.categoryPreferences = [:]
        self.vipContacts = []
        self.mutedThreadIds = []
        self.quietHoursEnabled = false
        self.quietHoursStart = nil
        self.quietHoursEnd = nil
        self.timeZone = timeZone
    }

    public func notificationsEnabled(for account: AccountID) -> Bool {
        accountNotifications[account] ?? true
    }

    public func notificationCategoryEnabled(for category: AICategory) -> Bool {
        categoryPreferences[category] ?? true
    }

    public mutating func setNotificationCategory(_ category: AICategory, enabled: Bool) {
        categoryPreferences[category] = enabled
    }

    public func isVIP(_ address: String) -> Bool {
        vipContacts.contains(address.lowercased())
    }

    public mutating func addVIPContact(_ address: String) {
        vipContacts.insert(address.lowercased())
    }

    public mutating func removeVIPContact(_ address: String) {
        vipContacts.remove(address.lowercased())
    }

    public func isMuted(_ thread: ThreadID) -> Bool {
        mutedThreadIds.contains(thread)
    }

    /// Mutes the thread, or unmutes it when it is already muted.
    public mutating func toggleMuteThread(_ thread: ThreadID) {
        if mutedThreadIds.remove(thread) == nil {
            mutedThreadIds.insert(thread)
        }
    }

    /// Drops muted ids of threads that no longer exist, so the set cannot grow without bound.
    public mutating func pruneMutedThreads(keeping existing: Set<ThreadID>) {
        mutedThreadIds.formIntersection(existing)
    }

    /// Sets the quiet period; each bound must be in `0..<1440`.
    public mutating func setQuietHours(start: Int, end: Int) throws(SettingsError) {
        guard QuietHours.isValidMinute(start) else { throw .minuteOutOfRange(key: "quietHoursStart", value: start) }
        guard QuietHours.isValidMinute(end) else { throw .minuteOutOfRange(key: "quietHoursEnd", value: end) }
        quietHoursStart = start
        quietHoursEnd = end
    }

    /// The quiet period in force, or `nil` when quiet hours are off.
    public var activeQuietHours: QuietHours? {
        guard quietHoursEnabled else { return nil }
        return QuietHours(
            start: quietHoursStart ?? QuietHours.defaultStart, end: quietHoursEnd ?? QuietHours.defaultEnd)
    }
}
