public import Foundation

/// How one `mail-notifier` run treats its emails.
public struct RunOptions: Hashable, Sendable {
    /// A background sync: the 1-hour recency window instead of 5 minutes.
    public var fromBackground: Bool
    /// The folder type on screen; its emails update only the badge.
    public var activeFolderType: FolderType?
    /// The clock of the run.
    public var now: Date
    /// The zone quiet hours are read in when the settings name none.
    public var machineTimeZone: TimeZone

    public init(
        fromBackground: Bool = false, activeFolderType: FolderType? = nil, now: Date,
        machineTimeZone: TimeZone = .current
    ) {
        self.fromBackground = fromBackground
        self.activeFolderType = activeFolderType
        self.now = now
        self.machineTimeZone = machineTimeZone
    }
}
