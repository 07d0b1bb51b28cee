import APNsCore

/// Which line a delivery waits in. The claim serves `immediate` first and keeps a part of every claim for `bulk`
/// (``ClaimShares``), so a call or a two-factor code does not wait behind a fan-out, and the fan-out still moves.
public enum DeliveryLane: String, Sendable, CaseIterable, Codable {
    case immediate
    case bulk

    /// The lane of a message whose sender names none: calls, push-to-talk and Live Activities, and alerts at
    /// priority 10 that are time-sensitive or critical, are `immediate`; everything else is `bulk`.
    public static func `default`(for message: NotificationMessage) -> DeliveryLane {
        if [.voip, .pushToTalk, .liveActivity].contains(message.pushType) { return .immediate }
        guard message.priority == .immediate else { return .bulk }
        switch message.payload(for: .default)?.aps.interruptionLevel {
        case .timeSensitive, .critical: return .immediate
        default: return .bulk
        }
    }
}
