public import Foundation

/// How one `mail-notifier` run treats its emails.
public struct RunOptions: Hashable, Sendable {
    /// A background sync: the 1-hour recency window instead of 5 minutes.
    public var fromBackground: Bool
    /// The folder type on screen; its emails update only the badge.
    public var activeFolderType: FolderType?
    /// This run is the first sync of a session: nothing notifies.
    public var firstLaunch: Bool
    /// The clock of the run.
    public var now: Date

    public init(fromBackground: Bool = false, activeFolderType: FolderType? = nil, firstLaunch: Bool = false, now: Date)
    {
        self.fromBackground = fromBackground
        self.activeFolderType = activeFolderType
        self.firstLaunch = firstLaunch
        self.now = now
    }
}
