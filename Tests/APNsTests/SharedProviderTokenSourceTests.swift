import APNs
import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldTesting
import Logging
import Synchronization
import Testing

/// A token source given the fleet's token uses it, leaves renewal to the fleet, and signs its own only when the
/// given token nears expiry (the fleet's store is unreachable).
@Suite struct SharedProviderTokenSourceTests {
    func source(clock: ManualClock) throws -> ProviderTokenSource {
        let key = TestSigningKey.generate()
        return ProviderTokenSource(
            key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: key.keyID, teamID: "TEAM123456", clock: clock,
            logger: Logger(label: "test"))
    }

    @Test func anAdoptedTokenIsUsedUntilItNearsExpiry() throws {
        let clock = ManualClock()
        let source = try source(clock: clock)
        let shared = try source.signToken(issuedAt: clock.now())
        source.adopt(shared)
        #expect(try source.currentToken().jwt == shared.jwt)
        clock.advance(by: 51 * 60)
        #expect(try source.currentToken().jwt == shared.jwt, "renewal at 50 minutes is the fleet's")
        clock.advance(by: 5 * 60)
        #expect(try source.currentToken().jwt != shared.jwt, "at 55 minutes it signs its own rather than expire")
    }

    @Test func applesAnswersAskTheFleetForAnotherToken() throws {
        let clock = ManualClock()
        let source = try source(clock: clock)
        let reasons = Mutex<[ProviderTokenRenewalReason]>([])
        source.onRenewalNeeded { reason in reasons.withLock { $0.append(reason) } }
        let shared = try source.signToken(issuedAt: clock.now())
        source.adopt(shared)
        let token = try source.currentToken()
        source.reportTooManyUpdates(token)
        clock.advance(by: 25 * 60)
        source.reportExpired(token)
        #expect(reasons.withLock { $0 } == [.tooManyUpdates, .expired])
        #expect(try source.currentToken().jwt == shared.jwt, "the fleet answers with adopt(_:); nothing is signed here")
    }
}
