import APNsCore
public import Foundation

/// The time of day, injected so token ages and `iat` claims can be tested without waiting.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
