/// APNs delivery priority: 10 at once, 5 when the device sees fit (required for background pushes),
/// 1 lowest.
public enum PushPriority: Int, Hashable, Sendable, Codable {
    case immediate = 10
    case powerConsiderate = 5
    case low = 1
}
