public import APNsCore
public import Foundation

/// Whether the engine may send full batches, must probe with one push, or must wait: answers about Apple's service
/// or the key rather than a device (`503 ServiceUnavailable`/`Shutdown`, `429 TooManyProviderTokenUpdates`, a burst
/// of `429 TooManyRequests`) pause sending with exponential backoff and jitter instead of retrying every delivery on
/// its own schedule, which toward a failing Apple adds up to a hot loop.
///
/// Sending starts with one probe push (after start and after every pause); a probe Apple answers normally opens full
/// batches, a refused one doubles the pause (1 s up to 60 s, scaled by a jitter in 0.5…1). Deliveries refused this
/// way go back to `pending` without spending an attempt. Pure state: the engine supplies the time and the jitter.
public struct SendHealth: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Nothing answered yet since start or since a pause ended: send one push first.
        case probing
        /// A probe was answered normally: full batches.
        case healthy
        /// Wait until this moment, then probe.
        case paused(until: Date)
    }

    public static let initialPause: Duration = .seconds(1)
    public static let maximumPause: Duration = .seconds(60)
    /// A chunk of answers with at least this many `TooManyRequests`, making up half of it or more, is a burst.
    public static let tooManyRequestsBurst = 10

    public private(set) var state = State.probing
    /// Pauses in a row without a normal answer in between.
    public private(set) var consecutivePauses = 0

    public init() {}

    /// Whether `reason` concerns the service or the key rather than the device it was sent to.
    public static func isServiceRefusal(_ reason: APNsReason) -> Bool {
        switch reason {
        case .serviceUnavailable, .shutdown, .tooManyProviderTokenUpdates: true
        default: false
        }
    }

    /// Whether a chunk of answers refuses the service: any service refusal, or a burst of `TooManyRequests`.
    public static func refusesService(_ results: [PushResult]) -> Bool {
        var tooMany = 0
        for result in results {
            guard case .rejected(let rejection) = result else { continue }
            if isServiceRefusal(rejection.reason) { return true }
            if rejection.reason == .tooManyRequests { tooMany += 1 }
        }
        return tooMany >= tooManyRequestsBurst && tooMany * 2 >= results.count
    }

    /// How many deliveries a worker may claim at `now`: 0 while paused, 1 to probe, else `batchSize`.
    public mutating func claimLimit(batchSize: Int, at now: Date) -> Int {
        if case .paused(let until) = state {
            guard now >= until else { return 0 }
            state = .probing
        }
        return state == .healthy ? batchSize : 1
    }

    /// Records a chunk of answers.
    /// - Returns: The pause begun now, if the answers refused the service.
    public mutating func record(_ results: [PushResult], at now: Date, jitter: Double) -> Duration? {
        if Self.refusesService(results) {
            // Answers to pushes sent before the pause began do not extend it.
            if case .paused(let until) = state, until > now { return nil }
            let exponent = min(consecutivePauses, 16)
            let base = min(Self.initialPause * (1 << exponent), Self.maximumPause)
            let pause = base * (0.5 + 0.5 * min(max(jitter, 0), 1))
            consecutivePauses += 1
            state = .paused(until: now.addingTimeInterval(pause.seconds))
            return pause
        }
        let answeredNormally = results.contains { result in
            switch result {
            case .accepted, .rejected: true
            case .failed: false
            }
        }
        if answeredNormally, case .probing = state {
            state = .healthy
            consecutivePauses = 0
        }
        return nil
    }

    /// The time left in the current pause at `now`, or nil.
    public func remainingPause(at now: Date) -> Duration? {
        guard case .paused(let until) = state, until > now else { return nil }
        return .milliseconds(Int64((until.timeIntervalSince(now) * 1000).rounded(.up)))
    }
}
