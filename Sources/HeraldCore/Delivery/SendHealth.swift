public import APNsCore
public import Foundation

/// Whether the engine may send full batches, must probe with one push, or must wait: answers about Apple's service
/// or the key rather than a device (`503 ServiceUnavailable`/`Shutdown`, `429 TooManyProviderTokenUpdates`, a burst
/// of `429 TooManyRequests`, a `403` refusing the key or team) pause sending with exponential backoff and jitter
/// instead of retrying every delivery on its own schedule, which toward a failing Apple adds up to a hot loop.
///
/// Sending starts with one probe push (after start and after every pause); a probe Apple answers normally opens full
/// batches, a refused one doubles the pause (service refusals 1 s up to 60 s; credential refusals, which only a
/// change at Apple or a new key cures, 1 minute up to 30 minutes), scaled by a jitter in 0.5…1. Deliveries refused
/// this way go back to `pending` without spending an attempt. Pure state: the engine supplies the time and the jitter.
public struct SendHealth: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Nothing answered yet since start or since a pause ended: send one push first.
        case probing
        /// A probe was answered normally: full batches.
        case healthy
        /// Wait until this moment, then probe.
        case paused(until: Date)
    }

    /// Pauses that double from `initial` up to `maximum`.
    public struct Backoff: Sendable, Equatable {
        public var initial: Duration
        public var maximum: Duration

        public init(initial: Duration, maximum: Duration) {
            self.initial = initial
            self.maximum = maximum
        }

        /// The pause after `previous` pauses in a row, scaled by `jitter` (0…1) into 0.5…1 of it.
        func pause(after previous: Int, jitter: Double) -> Duration {
            let base = min(initial * (1 << min(previous, 16)), maximum)
            return base * (0.5 + 0.5 * min(max(jitter, 0), 1))
        }
    }

    public static let serviceBackoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
    public static let defaultCredentialBackoff = Backoff(initial: .seconds(60), maximum: .seconds(30 * 60))
    /// A chunk of answers with at least this many `TooManyRequests`, making up half of it or more, is a burst.
    public static let tooManyRequestsBurst = 10

    public private(set) var state = State.probing
    /// Pauses in a row without a normal answer in between.
    public private(set) var consecutivePauses = 0
    public let credentialBackoff: Backoff

    public init(credentialBackoff: Backoff = Self.defaultCredentialBackoff) {
        self.credentialBackoff = credentialBackoff
    }

    /// Whether a chunk of answers refuses the service: any service refusal, or a burst of `TooManyRequests`.
    public static func refusesService(_ results: [PushResult]) -> Bool {
        var tooMany = 0
        for result in results {
            guard case .rejected(let rejection) = result else { continue }
            if rejection.reason.consequence == .pauseSending { return true }
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
        if Self.refusesService(results) { return pause(with: Self.serviceBackoff, at: now, jitter: jitter) }
        let answeredNormally = results.contains { result in
            switch result {
            case .accepted: true
            case .rejected(let rejection):
                switch rejection.reason.consequence {
                case .refuseKey, .refuseCredentials: false
                default: true
                }
            case .failed: false
            }
        }
        if answeredNormally, case .probing = state {
            state = .healthy
            consecutivePauses = 0
        }
        return nil
    }

    /// Apple refused the key or team (or no provider token could be made): pause on the credential ladder.
    /// - Returns: The pause begun now, nil when one is already running.
    public mutating func recordCredentialRefusal(at now: Date, jitter: Double) -> Duration? {
        pause(with: credentialBackoff, at: now, jitter: jitter)
    }

    /// Ends a pause at once (an operator's `herald deliveries resume`): the next claim probes.
    public mutating func resume() {
        state = .probing
        consecutivePauses = 0
    }

    private mutating func pause(with backoff: Backoff, at now: Date, jitter: Double) -> Duration? {
        // Answers to pushes sent before the pause began do not extend it.
        if case .paused(let until) = state, until > now { return nil }
        let pause = backoff.pause(after: consecutivePauses, jitter: jitter)
        consecutivePauses += 1
        state = .paused(until: now.addingTimeInterval(pause.seconds))
        return pause
    }

    /// The time left in the current pause at `now`, or nil.
    public func remainingPause(at now: Date) -> Duration? {
        guard case .paused(let until) = state, until > now else { return nil }
        return .milliseconds(Int64((until.timeIntervalSince(now) * 1000).rounded(.up)))
    }
}
