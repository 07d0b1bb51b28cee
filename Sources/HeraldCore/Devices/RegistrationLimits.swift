/// How many active tokens one user may keep, so a user token cannot multiply every push to its user without bound.
/// Registering one more deactivates (reason `over_limit`) the least recently registered.
public struct RegistrationLimits: Sendable, Equatable {
    /// Active devices per user and app (`HERALD_MAX_DEVICES_PER_USER`, default 50).
    public var devicesPerUser: Int
    /// Active Live Activity tokens per device, and push-to-start tokens per device, each
    /// (`HERALD_MAX_ACTIVITY_TOKENS_PER_DEVICE`, default 20).
    public var activityTokensPerDevice: Int

    public init(devicesPerUser: Int = 50, activityTokensPerDevice: Int = 20) {
        self.devicesPerUser = max(1, devicesPerUser)
        self.activityTokensPerDevice = max(1, activityTokensPerDevice)
    }

    /// The first key of the advisory locks that serialize one user's registrations (the second is a hash of the
    /// user's id) and one device's Live Activity tokens (a hash of the device's id): two-key locks, apart from the
    /// one-key locks elsewhere.
    package static let userLockSpace: Int32 = 0x4844_5631
    static let deviceLockSpace: Int32 = 0x4841_5431
}
