import APNsCore
import Foundation
import HeraldCore
import Logging

/// Answers one request: reads it, checks its credentials and Apple's rules, stores the push durably, and answers as
/// ``IngressConfiguration/Mode`` says. A refused request changes nothing. Nothing a client sends makes it answer 500:
/// only the database being unreachable does (`503 ServiceUnavailable`, which Apple's clients retry), and Herald giving
/// up on a push without Apple's final answer (`500 InternalServerError`, with `herald-reason`).
struct IngressRelay: Sendable {
    let credentials: IngressCredentials
    let store: IngressStore
    let waiters: RelayWaiters
    /// The ingress user's id (``IngressStore/prepare()``).
    let user: UUID
    let mode: IngressConfiguration.Mode
    let wait: Duration
    let logger: Logger

    func answer(_ request: IngressRequest) async -> IngressAnswer {
        let head: InboundPush.Head
        do {
            head = try InboundPush.read(request)
        } catch {
            return error.answer
        }
        do {
            let identity: IngressCredentials.Identity
            switch try await credentials.identify(request.value("authorization"), from: request.clientAddress) {
            case .identified(let known): identity = known
            case .refused(let reason): return .refused(reason, head.apnsID)
            }
            let push: InboundPush
            do {
                push = try InboundPush.validate(request, head: head)
            } catch {
                return error.answer
            }
            guard let app = await credentials.app(bundleID: push.bundleID, for: identity) else {
                return .refused(.topicDisallowed, head.apnsID)
            }
            let receipt = try await store.accept(
                RelaySubmission(
                    id: push.apnsID, token: push.token, app: app, message: push.message, expiresAt: push.expiresAt,
                    apiKeyID: identity.apiKeyID),
                user: user)
            guard mode == .relay else { return .queued(push.apnsID) }
            guard let outcome = await waiters.outcome(of: receipt, within: wait) else { return .queued(push.apnsID) }
            return Self.answer(outcome, apnsID: push.apnsID)
        } catch RelayConflict.apnsIDInUse {
            return .refused(.badMessageID, head.apnsID)
        } catch RelayConflict.tokenOfAnotherApp {
            // What Apple answers a token sent to another app's topic; nothing is stored or sent.
            return .refused(.deviceTokenNotForTopic, head.apnsID)
        } catch {
            logger.error(
                "the APNs ingress cannot store a push", metadata: ["apns.id": "\(head.apnsID)", "error": "\(error)"])
            return .refused(.serviceUnavailable, head.apnsID)
        }
    }

    /// The client's answer for a push's final outcome: Apple's, as Apple gave it, or `500 InternalServerError` with
    /// Herald's reason in `herald-reason` when Herald gave up without one (its attempts ran out, it expired, it was
    /// canceled).
    static func answer(_ outcome: RelayOutcome, apnsID: APNsID) -> IngressAnswer {
        if outcome.status == .sent { return .accepted(apnsID, uniqueID: outcome.uniqueID) }
        if let status = outcome.httpStatus, status >= 400, let reason = outcome.reason {
            return IngressAnswer(
                status: status, apnsID: apnsID, reason: reason,
                timestamp: status == 410 ? outcome.appleTimestamp : nil)
        }
        var answer = IngressAnswer.refused(.internalServerError, apnsID)
        answer.heraldReason = outcome.reason ?? outcome.status.rawValue
        return answer
    }
}
