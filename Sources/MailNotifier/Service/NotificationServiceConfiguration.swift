/// The anti-flood limits of NOTIF-19 and the dedup bound of NFR-NOTIF-03.
public struct NotificationServiceConfiguration: Hashable, Sendable {
    /// Background syncs notify only for emails at most this old (1 hour).
    public var backgroundRecency: Duration
    /// Foreground syncs notify only for emails at most this old (5 minutes): the user sees older ones
    /// in the app.
    public var foregroundRecency: Duration
    /// At most this many banners per sync (10); the rest only update the badge.
    public var maxBannersPerSync: Int
    /// At most this many delivered ids are remembered (10,000).
    public var dedupCapacity: Int

    public init(
        backgroundRecency: Duration = .seconds(3600),
        foregroundRecency: Duration = .seconds(300),
        maxBannersPerSync: Int = 10,
        dedupCapacity: Int = DeliveredNotificationSet.defaultCapacity
    ) {
        self.backgroundRecency = backgroundRecency
        self.foregroundRecency = foregroundRecency
        self.maxBannersPerSync = maxBannersPerSync
        self.dedupCapacity = dedupCapacity
    }
}
