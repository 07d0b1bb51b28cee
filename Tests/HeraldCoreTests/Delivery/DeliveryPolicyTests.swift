import APNsCore
import Foundation
import HeraldCore
import Testing

/// Every outcome rule, decided without sockets or a database.
@Suite struct DeliveryPolicyTests {
    let policy = DeliveryPolicy(maximumAttempts: 3, initialBackoff: .seconds(1), maximumBackoff: .seconds(60))
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let registered = Date(timeIntervalSince1970: 1_700_000_000)

    func facts(
        attempt: Int = 1, environment: APNsEnvironment = .sandbox, device: APNsEnvironment = .sandbox,
        previous: DeliveryReason? = nil, expiresAt: Date? = nil
    ) -> DeliveryFacts {
        DeliveryFacts(
            attempt: attempt, environment: environment, deviceEnvironment: device, deviceRegisteredAt: registered,
            previousReason: previous, expiresAt: expiresAt)
    }

    func rejected(_ reason: APNsReason, timestamp: Date? = nil) -> PushResult {
        .rejected(PushRejection(status: reason.status ?? 400, reason: reason, apnsID: nil, timestamp: timestamp))
    }

    func decide(_ result: PushResult, _ facts: DeliveryFacts, tripped: Bool = false) -> DeliveryOutcome {
        policy.outcome(of: result, facts: facts, now: now, burstGuardTripped: tripped, jitter: 0.5)
    }

    @Test func acceptedIsSent() {
        let result = PushResult.accepted(PushReceipt(apnsID: APNsID(), uniqueID: nil))
        #expect(decide(result, facts()) == .sent(correctedEnvironment: nil))
    }

    @Test func acceptedInTheOtherEnvironmentCorrectsTheDevice() {
        let result = PushResult.accepted(PushReceipt(apnsID: APNsID(), uniqueID: nil))
        #expect(
            decide(result, facts(environment: .production, device: .sandbox))
                == .sent(correctedEnvironment: .production))
    }

    @Test(arguments: [APNsReason.unregistered, .expiredToken])
    func deadTokenNewerThanRegistrationDeactivates(reason: APNsReason) {
        let stamp = registered.addingTimeInterval(60)
        let expected: DeactivationReason = reason == .unregistered ? .unregistered : .expiredToken
        #expect(
            decide(rejected(reason, timestamp: stamp), facts()) == .deactivateDevice(expected, appleTimestamp: stamp))
    }

    @Test func deadTokenOlderThanRegistrationKeepsTheDevice() {
        let stamp = registered.addingTimeInterval(-60)
        #expect(decide(rejected(.unregistered, timestamp: stamp), facts()) == .fail(reason: .apple(.unregistered)))
        #expect(!policy.wouldDeactivate(rejected(.unregistered, timestamp: stamp), facts: facts()))
    }

    @Test func badDeviceTokenRetriesOnceInTheOtherEnvironment() {
        #expect(decide(rejected(.badDeviceToken), facts()) == .retryInOtherEnvironment(.production))
        #expect(
            decide(rejected(.badDeviceToken), facts(environment: .production, device: .production))
                == .retryInOtherEnvironment(.sandbox))
    }

    @Test func badDeviceTokenInBothEnvironmentsDeactivates() {
        #expect(
            decide(rejected(.badDeviceToken), facts(environment: .production, device: .sandbox))
                == .deactivateDevice(.badDeviceToken, appleTimestamp: now))
    }

    @Test func deviceTokenNotForTopicFailsAndKeepsTheDevice() {
        #expect(decide(rejected(.deviceTokenNotForTopic), facts()) == .fail(reason: .apple(.deviceTokenNotForTopic)))
        #expect(!policy.wouldDeactivate(rejected(.deviceTokenNotForTopic), facts: facts()))
    }

    @Test func burstGuardWithholdsDeactivation() {
        let outcome = decide(rejected(.unregistered, timestamp: now), facts(), tripped: true)
        guard case .retry(let at, let reason) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(at > now)
        #expect(reason == .withheld(.unregistered))
        #expect(reason.isWithheldDeactivation && reason.metricLabel == "Unregistered")
        let bad = decide(rejected(.badDeviceToken), facts(environment: .production, device: .sandbox), tripped: true)
        #expect(bad.state == .pending)
    }

    @Test(arguments: [APNsReason.tooManyRequests, .internalServerError])
    func transientRejectionsBackOff(reason: APNsReason) {
        #expect(
            decide(rejected(reason), facts(attempt: 1))
                == .retry(at: now.addingTimeInterval(0.75), reason: .apple(reason))
        )
        #expect(
            decide(rejected(reason), facts(attempt: 2))
                == .retry(at: now.addingTimeInterval(1.5), reason: .apple(reason)))
    }

    @Test(arguments: [
        TransportFailure.timedOut, .connectionFailed("refused"), .protocolError("GOAWAY"),
        .noSigningKey("no key for com.example.two"),
    ])
    func missingAnswersBackOff(failure: TransportFailure) {
        let outcome = decide(.failed(failure), facts())
        #expect(outcome.state == .pending)
        #expect(outcome.logStatus == .retrying)
    }

    /// The push itself is what no connection takes: it fails at its first attempt, with a reason of its own.
    @Test func pushesNoConnectionTakesFailAtOnce() {
        #expect(
            decide(.failed(.unsafeHeaderValue("apns-collapse-id")), facts())
                == .fail(reason: .unsafeHeaderValue))
        #expect(decide(.failed(.connectionRefusedRequest), facts()) == .fail(reason: .connectionRefusedRequest))
        #expect(DeliveryReason.connectionRefusedRequest.text == "ConnectionRefusedRequest")
        #expect(DeliveryReason.unsafeHeaderValue.text == "UnsafeHeaderValue")
    }

    /// Refusals of the service or the key, not the device, pause sending (SendHealth); the push waits without
    /// spending an attempt, however many it had.
    @Test(arguments: [APNsReason.serviceUnavailable, .shutdown, .tooManyProviderTokenUpdates])
    func serviceRefusalsPutThePushBackWithoutSpendingAnAttempt(reason: APNsReason) {
        let outcome = decide(rejected(reason), facts(attempt: 3))
        #expect(outcome == .release(reason: .apple(reason)))
        #expect(outcome.refundsAttempt)
    }

    @Test func attemptLimitEndsRetries() {
        #expect(
            decide(rejected(.internalServerError), facts(attempt: 3)) == .fail(reason: .apple(.internalServerError)))
    }

    @Test func retriesNeverPassTheExpiration() {
        let expiresAt = now.addingTimeInterval(0.5)
        #expect(decide(rejected(.tooManyRequests), facts(expiresAt: expiresAt)) == .expire)
    }

    @Test func payloadTooLargeIsShortenedOnce() {
        #expect(decide(rejected(.payloadTooLarge), facts()) == .retryShortened)
        #expect(
            decide(rejected(.payloadTooLarge), facts(attempt: 2, previous: .apple(.payloadTooLarge)))
                == .fail(reason: .apple(.payloadTooLarge)))
    }

    @Test(arguments: [APNsReason.invalidProviderToken, .forbidden, .badCertificate, .unrelatedKeyIDInToken])
    func credentialRefusalsPauseTheKey(reason: APNsReason) {
        let outcome = decide(rejected(reason), facts())
        #expect(outcome == .pauseKey(reason: .apple(reason)))
        #expect(outcome.refundsAttempt)
    }

    @Test func renewableProviderTokenIsRetried() {
        #expect(decide(rejected(.expiredProviderToken), facts()).state == .pending)
        #expect(
            decide(.failed(.credentialsUnavailable("no key")), facts()) == .pauseKey(reason: .providerTokenUnavailable)
        )
    }

    @Test func cancelledSendsAreReleased() {
        let outcome = decide(.failed(.cancelled), facts())
        #expect(outcome.refundsAttempt)
        #expect(outcome.state == .pending)
        #expect(decide(.failed(.shutDown), facts()).refundsAttempt)
    }

    @Test(arguments: [APNsReason.badCollapseID, .badPriority, .badTopic, .topicDisallowed, .unknown("Strange")])
    func otherRejections(reason: APNsReason) {
        let outcome = decide(rejected(reason), facts())
        if case .unknown = reason {
            #expect(outcome.state == .pending)
        } else {
            #expect(outcome == .fail(reason: .apple(reason)))
        }
    }

    @Test func backoffGrowsAndIsCapped() {
        #expect(policy.backoff(afterAttempt: 1, jitter: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 3, jitter: 1) == .seconds(4))
        #expect(policy.backoff(afterAttempt: 20, jitter: 1) == .seconds(60))
        #expect(policy.backoff(afterAttempt: 3, jitter: 0) == .seconds(2))
    }
}

@Suite struct BurstGuardTests {
    @Test func tripsAboveTheShareWithEnoughAnswers() {
        var guardState = BurstGuard(window: 200, maximumShare: 0.2, minimumCount: 20)
        for _ in 0..<100 { guardState.record(wouldDeactivate: false) }
        for _ in 0..<19 { guardState.record(wouldDeactivate: true) }
        #expect(!guardState.isTripped)
        for _ in 0..<7 { guardState.record(wouldDeactivate: true) }
        #expect(guardState.isTripped)
    }

    @Test func needsTheMinimumCount() {
        var guardState = BurstGuard(window: 200, maximumShare: 0.2, minimumCount: 20)
        for _ in 0..<19 { guardState.record(wouldDeactivate: true) }
        #expect(!guardState.isTripped)
        guardState.record(wouldDeactivate: true)
        #expect(guardState.isTripped)
    }

    @Test func recoversAsGoodAnswersPushOldOnesOut() {
        var guardState = BurstGuard(window: 50, maximumShare: 0.2, minimumCount: 5)
        for _ in 0..<20 { guardState.record(wouldDeactivate: true) }
        #expect(guardState.isTripped)
        for _ in 0..<50 { guardState.record(wouldDeactivate: false) }
        #expect(!guardState.isTripped)
        #expect(guardState.deactivatingCount == 0)
    }
}
