import APNsCore
import Foundation
import Logging
import Postgres
import Synchronization

/// One push of a batch and what came of it.
struct SendResult: Sendable {
    let index: Int
    let result: PushResult
    /// Seconds from handing the push to the transport to its answer.
    let latency: Double
}

/// A notification's content made ready for one appearance: built once per batch, used for every device.
private struct PreparedContent {
    let template: PushTemplate
    let payload: PostgresJSON
    let feedbackID: String?
}

private struct TemplateKey: Hashable {
    let notificationID: UUID
    let appearance: PushAppearance
    let shortened: Bool
}

extension DeliveryEngine {
    /// Sends one claimed batch and records every result.
    func process(_ batch: [ClaimedDelivery]) async {
        metrics.adjustInFlight(by: batch.count)
        defer { metrics.adjustInFlight(by: -batch.count) }
        let started = Date()
        let paused = isPaused
        var attempts: [DeliveryAttempt?] = Array(repeating: nil, count: batch.count)
        var pushes: [(index: Int, request: PushRequest)] = []
        var prepared: [TemplateKey: Result<PreparedContent, NotificationContentError>] = [:]
        for (index, delivery) in batch.enumerated() {
            if let outcome = preflight(delivery, now: started, paused: paused) {
                attempts[index] = DeliveryAttempt(
                    delivery: delivery, outcome: outcome, httpStatus: nil, reason: outcome.reasonText, latency: nil,
                    payload: nil, errorMessage: nil, feedbackID: nil, finishedAt: started)
                continue
            }
            let key = TemplateKey(
                notificationID: delivery.notificationID, appearance: delivery.appearance,
                shortened: delivery.facts.wasShortened)
            let built: Result<PreparedContent, NotificationContentError>
            if let cached = prepared[key] {
                built = cached
            } else {
                built = Self.prepare(delivery.content, for: delivery, shortened: key.shortened)
                prepared[key] = built
            }
            switch request(for: delivery, content: built) {
            case .success(let request):
                pushes.append((index, request))
            case .failure(let refusal):
                attempts[index] = DeliveryAttempt(
                    delivery: delivery, outcome: .fail(reason: refusal.reason), httpStatus: nil, reason: refusal.reason,
                    latency: nil, payload: nil, errorMessage: refusal.message, feedbackID: nil, finishedAt: started)
            }
        }

        let results = await send(pushes, batch: batch)
        let answered = Date()
        decide(results, batch: batch, prepared: prepared, answeredAt: answered, into: &attempts)
        await record(attempts.compactMap { $0 })
    }

    /// Why a claimed delivery cannot become a request: Herald's reason and a message for the log.
    struct Refusal: Error {
        let reason: String
        let message: String
    }

    private func request(
        for delivery: ClaimedDelivery, content: Result<PreparedContent, NotificationContentError>
    ) -> Result<PushRequest, Refusal> {
        let prepared: PreparedContent
        switch content {
        case .success(let value): prepared = value
        case .failure(let error): return .failure(Refusal(reason: "InvalidContent", message: error.description))
        }
        guard let bundleID = delivery.deviceTopic ?? configuration.bundleID else {
            return .failure(
                Refusal(reason: "MissingTopic", message: "no topic: the device has none and no bundle id is configured")
            )
        }
        guard let token = DeviceToken(hex: delivery.deviceToken) else {
            return .failure(
                Refusal(reason: "InvalidDeviceToken", message: "the stored device token is not a valid APNs token"))
        }
        do {
            return .success(
                try prepared.template.request(apnsID: APNsID(delivery.id), deviceToken: token, bundleID: bundleID))
        } catch {
            return .failure(Refusal(reason: "InvalidContent", message: error.description))
        }
    }

    /// What to do without sending: canceled, moved or deactivated devices, expired notifications, a paused key.
    func preflight(_ delivery: ClaimedDelivery, now: Date, paused: Bool) -> DeliveryOutcome? {
        if delivery.notificationCanceled { return .cancel(reason: "NotificationCanceled") }
        if !delivery.deviceActive { return .cancel(reason: "DeviceInactive") }
        if delivery.deviceUserID != delivery.userID { return .cancel(reason: "DeviceMovedToAnotherUser") }
        if let expiresAt = delivery.expiresAt, expiresAt <= now { return .expire }
        if paused { return .release(reason: "KeyPaused") }
        return nil
    }

    private static func prepare(
        _ content: NotificationContent?, for delivery: ClaimedDelivery, shortened: Bool
    ) -> Result<PreparedContent, NotificationContentError> {
        guard let content else { return .failure(.request(.payload(.notAnObject))) }
        return Result { () throws(NotificationContentError) -> PreparedContent in
            var template = try content.template(for: delivery.appearance, expiresAt: delivery.expiresAt)
            if shortened {
                // Apple found the payload too large although it fit the documented limit: cut the body further.
                template = try content.template(
                    for: delivery.appearance, expiresAt: delivery.expiresAt,
                    payloadLimit: template.payloadJSON.count * 3 / 4)
            }
            return PreparedContent(
                template: template, payload: PostgresJSON(text: String(decoding: template.payloadJSON, as: UTF8.self)),
                feedbackID: content.feedbackID)
        }
    }

    /// Sends every push at once; the task is cancelled if the shutdown grace period ends first.
    private func send(_ pushes: [(index: Int, request: PushRequest)], batch: [ClaimedDelivery]) async -> [SendResult] {
        guard !pushes.isEmpty else { return [] }
        let transports = transports
        let task = Task {
            await withTaskGroup(of: SendResult.self) { group in
                for push in pushes {
                    let transport = transports.transport(for: batch[push.index].environment)
                    group.addTask {
                        let begin = ContinuousClock.now
                        let result = (try? await transport.send(push.request)) ?? .failed(.cancelled)
                        return SendResult(
                            index: push.index, result: result, latency: (ContinuousClock.now - begin).seconds)
                    }
                }
                var results: [SendResult] = []
                results.reserveCapacity(pushes.count)
                for await result in group { results.append(result) }
                return results
            }
        }
        let id = state.withLock { state in
            defer { state.nextSendID += 1 }
            state.sends[state.nextSendID] = task
            if state.graceOver { task.cancel() }
            return state.nextSendID
        }
        let results = await task.value
        _ = state.withLock { $0.sends.removeValue(forKey: id) }
        return results
    }

    private func decide(
        _ results: [SendResult], batch: [ClaimedDelivery],
        prepared: [TemplateKey: Result<PreparedContent, NotificationContentError>],
        answeredAt: Date, into attempts: inout [DeliveryAttempt?]
    ) {
        let policy = configuration.policy
        var trippedNow = false
        var share = 0
        let decided = burstGuard.withLock { guardState -> [(SendResult, DeliveryOutcome)] in
            results.map { sent in
                let delivery = batch[sent.index]
                if case .failed = sent.result {
                } else {
                    guardState.record(wouldDeactivate: policy.wouldDeactivate(sent.result, facts: delivery.facts))
                }
                trippedNow = guardState.isTripped
                share = guardState.deactivatingCount
                let outcome = policy.outcome(
                    of: sent.result, facts: delivery.facts, now: answeredAt, burstGuardTripped: trippedNow,
                    jitter: Double.random(in: 0..<1))
                return (sent, outcome)
            }
        }
        noteBurstGuard(tripped: trippedNow, deactivating: share)
        for (sent, outcome) in decided {
            let index = sent.index
            let delivery = batch[index]
            if case .pauseKey(let reason) = outcome { pause(reason: reason) }
            let key = TemplateKey(
                notificationID: delivery.notificationID, appearance: delivery.appearance,
                shortened: delivery.facts.wasShortened)
            let content = try? prepared[key]?.get()
            attempts[index] = DeliveryAttempt(
                delivery: delivery, outcome: outcome, httpStatus: sent.result.httpStatus,
                reason: sent.result.reasonText ?? outcome.reasonText,
                latency: sent.result.httpStatus == nil ? nil : sent.latency, payload: content?.payload,
                errorMessage: sent.result.errorMessage, feedbackID: content?.feedbackID, finishedAt: answeredAt)
        }
    }

    private func noteBurstGuard(tripped: Bool, deactivating: Int) {
        let changed = state.withLock { state in
            defer { state.burstGuardTripped = tripped }
            return state.burstGuardTripped != tripped
        }
        guard changed else { return }
        if tripped {
            logger.critical(
                """
                too many recent APNs answers would deactivate devices; deactivation is suspended and those \
                deliveries are kept for retry. Check the APNs key, team, topic and environment.
                """,
                metadata: [DeliveryMetadataKey.count: "\(deactivating)"])
        } else {
            logger.notice("device deactivation resumed: recent APNs answers look normal again")
        }
    }

    /// Writes the batch's results, retrying briefly; if the database stays unreachable the leases run out
    /// and the rescuer sends the rows again (at-least-once).
    private func record(_ attempts: [DeliveryAttempt]) async {
        var deactivated: [DeactivatedDevice] = []
        var written = false
        for trial in 1...3 {
            do {
                deactivated = try await store.record(attempts, workerID: configuration.workerID)
                written = true
                break
            } catch {
                logger.error(
                    "recording delivery results failed",
                    metadata: [DeliveryMetadataKey.error: "\(error)", DeliveryMetadataKey.count: "\(attempts.count)"])
                try? await Task.sleep(for: .milliseconds(200 * trial))
            }
        }
        guard written else { return }
        metrics.recordBatch(attempts.map(\.outcome), latencies: attempts.compactMap(\.latency))
        if attempts.contains(where: { $0.outcome.isDueNow }) { doorbell.ring() }
        guard let webhook else { return }
        let now = Date()
        var events = deactivated.map {
            WebhookEvent(
                type: .deviceDeactivated, occurredAt: now, deviceId: $0.deviceID, userId: $0.userExternalID,
                reason: $0.reason.rawValue)
        }
        for attempt in attempts {
            guard case .fail(let reason) = attempt.outcome else { continue }
            events.append(
                WebhookEvent(
                    type: .deliveryFailed, occurredAt: now, deviceId: attempt.delivery.deviceID,
                    userId: attempt.delivery.userExternalID, reason: reason, deliveryId: attempt.delivery.id,
                    notificationId: attempt.delivery.notificationID))
        }
        webhook.enqueue(events)
    }
}

extension DeliveryOutcome {
    /// The reason recorded when Apple gave none.
    var reasonText: String? {
        switch self {
        case .sent, .deactivateDevice, .retryInOtherEnvironment, .retryShortened: nil
        case .retry(_, let reason), .fail(let reason), .cancel(let reason), .pauseKey(let reason),
            .release(let reason):
            reason
        case .expire: "Expired"
        }
    }

    /// Whether the row is due again at once, so idle workers should look now.
    var isDueNow: Bool {
        switch self {
        case .retryInOtherEnvironment, .retryShortened: true
        default: false
        }
    }
}

extension PushResult {
    var httpStatus: Int? {
        switch self {
        case .accepted: 200
        case .rejected(let rejection): rejection.status
        case .failed: nil
        }
    }

    /// Apple's reason, or Herald's name for a missing answer.
    var reasonText: String? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): rejection.reason.name
        case .failed(let failure): DeliveryPolicy.reason(for: failure)
        }
    }

    var errorMessage: String? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): "APNs answered \(rejection.status) \(rejection.reason.name)"
        case .failed(let failure): failure.description
        }
    }
}
