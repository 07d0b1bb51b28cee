/// One answer of `GET /api/v1/interactions`: the interactions after the cursor asked for, oldest first.
public struct InteractionPage: Hashable, Sendable {
    public var items: [Interaction]
    /// Where to read on from: the `since` of the next call. Equal to the one asked for when there are no items.
    public var nextCursor: InteractionCursor
    /// More items follow at once; read again with ``nextCursor``.
    public var hasMore: Bool

    public init(items: [Interaction], nextCursor: InteractionCursor, hasMore: Bool) {
        self.items = items
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }
}
