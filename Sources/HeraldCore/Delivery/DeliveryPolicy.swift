public import APNsCore
public import Foundation

/// Turns Apple's answer into a ``DeliveryOutcome``: one pure function, so every rule is tested
/// without sockets and no caller decides alone.
///
/// A refusal means what ``APNsCore/APNsReason/consequence`` says; this adds the facts of the row:
/// - a device is deactivated only when Apple's timestamp is later than its registration, and not while the burst
///   guard holds deactivations back;
/// - retries back off up to ``maximumAttempts``, never past the notification's expiration;
/// - timeouts and connection loss retry, a cancelled send goes back to `pending`.
/// - A push with a header value unfit for HTTP/2, or one that broke its connection when sent alone: fail.
public struct DeliveryPolicy: Hashable, Sendable {
    /// Attempts before a retryable failure becomes final. Default 8.
    public var maximumAttempts: Int
    /// The first retry's delay; each further retry doubles it. Default 1 s.
    public var initialBackoff: Duration
    /// The longest delay between attempts. Default 10 minutes.
    public var maximumBackoff: Duration

    public init(
        maximumAttempts: Int = 8, initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(600)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// Whether `result` would deactivate the device if nothing held it back: what the burst guard counts.
    public func wouldDeactivate(_ result: PushResult, facts: DeliveryFacts) -> Bool {
        guard case .rejected(let rejection) = result else { return false }
        switch rejection.reason.consequence {
        case .deactivateDevice:
            return (rejection.timestamp ?? .distantFuture) > facts.deviceRegisteredAt
        case .tryOtherEnvironment:
            return facts.isEnvironmentRetry
        case .tokenNotForTopic:
            return !facts.isDeviceToken
        default:
            return false
        }
    }

    /// The outcome of one attempt.
    /// - Parameters:
    ///   - result: Apple's answer, or why there was none.
    ///   - facts: The claimed row's facts.
    ///   - now: When the answer arrived.
    ///   - burstGuardTripped: Whether too many recent answers would deactivate devices; then none is deactivated.
    ///   - jitter: A number in 0..<1 spreading retries (pass a random one; tests pass fixed values).
    public func outcome(
        of result: PushResult, facts: DeliveryFacts, now: Date, burstGuardTripped: Bool, jitter: Double
    ) -> DeliveryOutcome {
        switch result {
        case .accepted:
            return .sent(correctedEnvironment: facts.isEnvironmentRetry ? facts.environment : nil)
        case .failed(let failure):
            switch failure {
            case .cancelled, .shutDown:
                return .release(reason: .noAnswer(failure))
            case .credentialsUnavailable:
                return .pauseKey(reason: .providerTokenUnavailable)
            case .timedOut, .connectionFailed, .protocolError:
                return retry(reason: .noAnswer(failure), facts: facts, now: now, jitter: jitter)
            case .noSigningKey:
                // This app's push waits for a key (backing off, up to the attempt limit); other apps keep sending.
                return retry(reason: .noAnswer(failure), facts: facts, now: now, jitter: jitter)
            case .unsafeHeaderValue, .connectionRefusedRequest:
                // The push itself is what no connection takes: sending it again would only break more connections.
                return .fail(reason: .noAnswer(failure))
            }
        case .rejected(let rejection):
            return outcome(of: rejection, facts: facts, now: now, burstGuardTripped: burstGuardTripped, jitter: jitter)
        }
    }

    private func outcome(
        of rejection: PushRejection, facts: DeliveryFacts, now: Date, burstGuardTripped: Bool, jitter: Double
    ) -> DeliveryOutcome {
        let reason = rejection.reason
        switch reason.consequence {
        case .deactivateDevice:
            let appleTimestamp = rejection.timestamp ?? now
            guard appleTimestamp > facts.deviceRegisteredAt else {
                // The device registered again after Apple last saw the token: the answer is stale.
                return .fail(reason: .apple(reason))
            }
            if burstGuardTripped { return withheld(reason, facts: facts, now: now, jitter: jitter) }
            return .deactivateDevice(
                reason == .unregistered ? .unregistered : .expiredToken, appleTimestamp: appleTimestamp)
        case .tryOtherEnvironment:
            guard facts.isEnvironmentRetry else {
                return .retryInOtherEnvironment(facts.environment == .sandbox ? .production : .sandbox)
            }
            if burstGuardTripped { return withheld(reason, facts: facts, now: now, jitter: jitter) }
            return .deactivateDevice(.badDeviceToken, appleTimestamp: now)
        case .shortenPayload:
            return facts.wasShortened ? .fail(reason: .apple(reason)) : .retryShortened
        case .retryLater:
            return retry(reason: .apple(reason), facts: facts, now: now, jitter: jitter)
        case .pauseSending:
            // The service refused, not this device: sending pauses (SendHealth) and the push waits without
            // spending an attempt.
            return .release(reason: .apple(reason))
        case .tokenNotForTopic:
            guard !facts.isDeviceToken else { return .fail(reason: .apple(reason)) }
            if burstGuardTripped { return withheld(reason, facts: facts, now: now, jitter: jitter) }
            return .deactivateDevice(.notForTopic, appleTimestamp: now)
        case .refuseKey, .refuseCredentials:
            return .pauseKey(reason: .apple(reason))
        case .fixConfiguration, .drop:
            return .fail(reason: .apple(reason))
        }
    }

    /// The delay before attempt `attempt + 1`: `initialBackoff · 2^(attempt-1)`, capped, then scaled by
    /// a jitter factor in 0.5..<1 so retries of one burst spread out.
    public func backoff(afterAttempt attempt: Int, jitter: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let base = min(initialBackoff * (1 << exponent), maximumBackoff)
        return base * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    private func retry(reason: DeliveryReason, facts: DeliveryFacts, now: Date, jitter: Double) -> DeliveryOutcome {
        guard facts.attempt < maximumAttempts else { return .fail(reason: reason) }
        let delay = backoff(afterAttempt: facts.attempt, jitter: jitter)
        let at = now.addingTimeInterval(delay.seconds)
        if let expiresAt = facts.expiresAt, at >= expiresAt { return .expire }
        return .retry(at: at, reason: reason)
    }

    private func withheld(_ reason: APNsReason, facts: DeliveryFacts, now: Date, jitter: Double) -> DeliveryOutcome {
        retry(reason: .withheld(reason), facts: facts, now: now, jitter: jitter)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    package var seconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
