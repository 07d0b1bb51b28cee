import APNsCore
import Foundation
import HeraldCore
import Testing

@Suite struct SendHealthTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func refused(_ reason: APNsReason) -> PushResult {
        .rejected(PushRejection(status: reason.status ?? 400, reason: reason, apnsID: nil, timestamp: nil))
    }

    @Test func sendingStartsWithOneProbeThenFullBatches() {
        var health = SendHealth()
        #expect(health.claimLimit(batchSize: 500, at: start) == 1)
        #expect(health.record([refused(.badDeviceToken)], at: start, jitter: 0) == nil, "a device's refusal is normal")
        #expect(health.claimLimit(batchSize: 500, at: start) == 500)
    }

    @Test func serviceRefusalsPauseWithDoublingPausesAndProbeAfterEach() {
        var health = SendHealth()
        var now = start
        var pauses: [Duration] = []
        for _ in 0..<8 {
            #expect(health.claimLimit(batchSize: 500, at: now) == 1, "after a pause, one probe")
            let pause = health.record([refused(.serviceUnavailable)], at: now, jitter: 1)
            pauses.append(pause ?? .zero)
            #expect(health.claimLimit(batchSize: 500, at: now) == 0)
            now = now.addingTimeInterval((pause ?? .zero).seconds)
        }
        #expect(pauses == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(health.claimLimit(batchSize: 500, at: now) == 1)
        _ = health.record([.accepted(PushReceipt(apnsID: APNsID(), uniqueID: nil))], at: now, jitter: 1)
        #expect(health.claimLimit(batchSize: 500, at: now) == 500)
        #expect(health.consecutivePauses == 0)
    }

    @Test func answersToPushesSentBeforeAPauseDoNotExtendIt() {
        var health = SendHealth()
        let first = health.record([refused(.tooManyProviderTokenUpdates)], at: start, jitter: 0)
        #expect(first == .milliseconds(500), "1 s scaled by the smallest jitter")
        #expect(health.record([refused(.shutdown)], at: start.addingTimeInterval(0.1), jitter: 0) == nil)
        #expect(health.consecutivePauses == 1)
    }

    @Test func aBurstOfTooManyRequestsIsAServiceRefusalButOneIsNot() {
        let accepted = PushResult.accepted(PushReceipt(apnsID: APNsID(), uniqueID: nil))
        #expect(!SendHealth.refusesService([refused(.tooManyRequests)] + Array(repeating: accepted, count: 5)))
        #expect(SendHealth.refusesService(Array(repeating: refused(.tooManyRequests), count: 10)))
        #expect(
            !SendHealth.refusesService(
                Array(repeating: refused(.tooManyRequests), count: 10) + Array(repeating: accepted, count: 11)))
    }

    /// A refused key or team backs off on its own, longer ladder, and a refused probe is no normal answer: only a
    /// probe Apple accepts (or answers about the device) ends it.
    @Test func credentialRefusalsBackOffFromAMinuteToHalfAnHourUntilAProbeIsAccepted() {
        var health = SendHealth()
        var now = start
        var pauses: [Duration] = []
        for _ in 0..<7 {
            #expect(health.claimLimit(batchSize: 500, at: now) == 1)
            #expect(health.record([refused(.invalidProviderToken)], at: now, jitter: 1) == nil)
            let pause = health.recordCredentialRefusal(at: now, jitter: 1) ?? .zero
            pauses.append(pause)
            #expect(health.claimLimit(batchSize: 500, at: now.addingTimeInterval(pause.seconds - 1)) == 0)
            now = now.addingTimeInterval(pause.seconds)
        }
        #expect(pauses == [60, 120, 240, 480, 960, 1800, 1800].map { Duration.seconds($0) })
        #expect(health.claimLimit(batchSize: 500, at: now) == 1)
        _ = health.record([refused(.badDeviceToken)], at: now, jitter: 1)
        #expect(health.claimLimit(batchSize: 500, at: now) == 500)
    }

    @Test func resumeEndsAPauseAtOnce() {
        var health = SendHealth()
        _ = health.recordCredentialRefusal(at: start, jitter: 0)
        #expect(health.claimLimit(batchSize: 500, at: start) == 0)
        health.resume()
        #expect(health.claimLimit(batchSize: 500, at: start) == 1)
        #expect(health.consecutivePauses == 0)
    }
}
