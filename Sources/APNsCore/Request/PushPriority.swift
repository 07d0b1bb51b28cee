/// The `apns-priority` header.
public enum PushPriority: Int, Sendable, CaseIterable, Codable {
    /// 10: deliver at once (the default for alerts).
    case immediate = 10
    /// 5: deliver considering the device's power (required for background pushes).
    case powerConsidered = 5
    /// 1: deliver prioritising the device's power; may be delayed or grouped.
    case powerPrioritized = 1

    /// The priority Apple assumes for a push type when none is chosen.
    public static func `default`(for type: PushType) -> PushPriority {
        type.requiresPowerConsideredPriority ? .powerConsidered : .immediate
    }
}
