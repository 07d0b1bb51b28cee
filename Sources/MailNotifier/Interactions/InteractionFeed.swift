/// Where a sync run reads the interactions with the mailbox owner's email banners, and how it records its
/// progress through them.
public struct InteractionFeed: Sendable {
    public let client: HeraldConnection
    /// Herald's external id of the mailbox owner.
    public let userId: String
    /// Saves the state after each applied interaction, so a crash right after one never applies it twice.
    public let checkpoint: @Sendable (DeliveryState) throws(RunError) -> Void

    public init(
        client: HeraldConnection, userId: String,
        checkpoint: @escaping @Sendable (DeliveryState) throws(RunError) -> Void
    ) {
        self.client = client
        self.userId = userId
        self.checkpoint = checkpoint
    }

    /// The owner's interactions with email banners after `cursor`.
    func query(since cursor: InteractionCursor?) -> InteractionQuery {
        InteractionQuery(since: cursor, userId: userId, type: HeraldNotificationCenter.bannerType)
    }
}
