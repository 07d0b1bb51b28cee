public import Foundation

/// What `mail-notifier` remembers between runs: the emails already notified, oldest first, so the same
/// email never notifies twice; the badge the devices were last sent, so an unchanged one is not sent
/// again; and how far it has read the interactions with its banners, so each is applied once. Stored as JSON
/// `{"delivered": [{"emailId", "threadId"}, …], "badgeCount": n, "interactionCursor": "…",
/// "appliedInteractionIds": […]}`; files of earlier versions lack the last three keys.
///
/// A missing state file means `mail-notifier` never ran here: that run is the first launch.
public struct DeliveryState: Hashable, Sendable, Codable {
    public var delivered: [DeliveredNotification]
    /// `nil` until Herald accepted a badge; files written before the badge was remembered lack it.
    public var badgeCount: Int?
    /// Where the next run reads Herald's interactions from; `nil` reads from the oldest Herald keeps.
    public var interactionCursor: InteractionCursor?
    /// Interactions past ``interactionCursor`` already applied. The cursor moves a whole page at a time, and
    /// the state is saved after each interaction, so these keep a run that stopped inside a page from applying
    /// the page's first interactions again. At most one page of ids.
    public var appliedInteractionIds: [InteractionID]
    /// True while the first launch has not read to the end of the interactions Herald holds (Herald could not be
    /// read then): the next run reads on from ``interactionCursor`` without applying, so interactions from before
    /// this mailbox was set up never act on it.
    public var catchingUpInteractions: Bool

    public init(
        delivered: [DeliveredNotification] = [], badgeCount: Int? = nil, interactionCursor: InteractionCursor? = nil,
        appliedInteractionIds: [InteractionID] = [], catchingUpInteractions: Bool = false
    ) {
        self.delivered = delivered
        self.badgeCount = badgeCount
        self.interactionCursor = interactionCursor
        self.appliedInteractionIds = appliedInteractionIds
        self.catchingUpInteractions = catchingUpInteractions
    }

    private enum CodingKeys: String, CodingKey {
        case delivered, badgeCount, interactionCursor, appliedInteractionIds, catchingUpInteractions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            delivered: try container.decode([DeliveredNotification].self, forKey: .delivered),
            badgeCount: try container.decodeIfPresent(Int.self, forKey: .badgeCount),
            interactionCursor: try container.decodeIfPresent(InteractionCursor.self, forKey: .interactionCursor),
            appliedInteractionIds: try container.decodeIfPresent([InteractionID].self, forKey: .appliedInteractionIds)
                ?? [],
            catchingUpInteractions: try container.decodeIfPresent(Bool.self, forKey: .catchingUpInteractions) ?? false)
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
