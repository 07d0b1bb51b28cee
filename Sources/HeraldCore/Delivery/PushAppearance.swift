public import APNsCore

/// How a user wants pushes to look on their devices (seed 002 FR-4).
public struct PushAppearance: Hashable, Sendable {
    /// `users.push_sound_enabled`: when off, payloads carry no sound.
    public var soundEnabled: Bool
    /// `users.push_badge_enabled`: when off, payloads carry no badge.
    public var badgeEnabled: Bool

    public init(soundEnabled: Bool = true, badgeEnabled: Bool = true) {
        self.soundEnabled = soundEnabled
        self.badgeEnabled = badgeEnabled
    }

    /// `payload` as this user wants it: without sound or badge when they turned those off.
    public func applied(to payload: Payload) -> Payload {
        var shown = payload
        if !soundEnabled { shown.aps.sound = nil }
        if !badgeEnabled { shown.aps.badge = nil }
        return shown
    }
}
