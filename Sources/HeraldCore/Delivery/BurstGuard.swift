/// Holds back deactivations when too many recent answers would deactivate devices: a wrong key, team,
/// topic or environment makes Apple reject good tokens, and acting on that would wipe them out.
///
/// A value type over the last ``window`` answers; the engine keeps one behind a lock.
public struct BurstGuard: Hashable, Sendable {
    /// How many recent answers are considered. Default 200.
    public let window: Int
    /// Tripped above this share of deactivating answers. Default 0.2.
    public let maximumShare: Double
    /// ...and only with at least this many of them. Default 20.
    public let minimumCount: Int

    private var answers: [Bool] = []
    private var next = 0
    private var deactivating = 0

    public init(window: Int = 200, maximumShare: Double = 0.2, minimumCount: Int = 20) {
        self.window = max(1, window)
        self.maximumShare = maximumShare
        self.minimumCount = minimumCount
    }

    /// Counts one answer from Apple.
    public mutating func record(wouldDeactivate: Bool) {
        if answers.count < window {
            answers.append(wouldDeactivate)
        } else {
            if answers[next] { deactivating -= 1 }
            answers[next] = wouldDeactivate
            next = (next + 1) % window
        }
        if wouldDeactivate { deactivating += 1 }
    }

    /// Deactivating answers in the window.
    public var deactivatingCount: Int { deactivating }

    /// Whether deactivations must be held back now.
    public var isTripped: Bool {
        deactivating >= minimumCount && Double(deactivating) > maximumShare * Double(answers.count)
    }
}
