import APNsCore
import Foundation
import Postgres

/// Turns a claimed batch into APNs requests, and into the outcomes that need none: canceled notifications, moved
/// or inactive devices, expired notifications, a paused key, content that cannot be sent. Pure: no I/O and no
/// engine state. Each notification's template is built once per batch and appearance.
struct DeliveryPlanner {
    /// The `apns-topic` for devices registered without one.
    let bundleID: String?

    /// What became of a batch before sending.
    struct Plan {
        /// The outcome of every delivery decided without sending, by batch index; nil for those to send.
        var attempts: [DeliveryAttempt?]
        /// A request for every delivery to send, with its batch index.
        var pushes: [(index: Int, request: PushRequest)]
        /// The content each request was built from, kept for the delivery log.
        var contents: [TemplateKey: Result<PreparedContent, UnreadableContent>]

        /// The content `delivery`'s request was built from.
        func content(of delivery: ClaimedDelivery) -> PreparedContent? {
            try? contents[TemplateKey(delivery)]?.get()
        }
    }

    func plan(_ batch: [ClaimedDelivery], now: Date, paused: Bool) -> Plan {
        var plan = Plan(attempts: Array(repeating: nil, count: batch.count), pushes: [], contents: [:])
        for (index, delivery) in batch.enumerated() {
            if let outcome = preflight(delivery, now: now, paused: paused) {
                plan.attempts[index] = DeliveryAttempt(
                    delivery: delivery, outcome: outcome, httpStatus: nil, reason: outcome.reason, latency: nil,
                    payload: nil, errorMessage: nil, feedbackID: nil, finishedAt: now)
                continue
            }
            let key = TemplateKey(delivery)
            let built: Result<PreparedContent, UnreadableContent>
            if let cached = plan.contents[key] {
                built = cached
            } else {
                built = Self.prepare(delivery, shortened: key.shortened)
                plan.contents[key] = built
            }
            switch request(for: delivery, content: built) {
            case .success(let request):
                plan.pushes.append((index, request))
            case .failure(let refusal):
                plan.attempts[index] = DeliveryAttempt(
                    delivery: delivery, outcome: .fail(reason: refusal.reason), httpStatus: nil, reason: refusal.reason,
                    latency: nil, payload: nil, errorMessage: refusal.message, feedbackID: nil, finishedAt: now)
            }
        }
        return plan
    }

    /// What to do without sending: canceled, moved or deactivated devices, expired notifications, a running pause.
    /// A push relayed by the APNs ingress names a token, not a user: it goes to that token whatever Herald knows of
    /// its device (deactivated, or moved to a user since), as Apple would take it; Apple's answer is the client's.
    func preflight(_ delivery: ClaimedDelivery, now: Date, paused: Bool) -> DeliveryOutcome? {
        if delivery.notificationCanceled { return .cancel(reason: .notificationCanceled) }
        if !delivery.isRelayed {
            if !delivery.deviceActive { return .cancel(reason: .deviceInactive) }
            if delivery.deviceUserID != delivery.userID { return .cancel(reason: .deviceMovedToAnotherUser) }
        }
        if let expiresAt = delivery.expiresAt, expiresAt <= now { return .expire }
        if paused { return .release(reason: .keyPaused) }
        return nil
    }

    private func request(
        for delivery: ClaimedDelivery, content: Result<PreparedContent, UnreadableContent>
    ) -> Result<PushRequest, Refusal> {
        let prepared: PreparedContent
        switch content {
        case .success(let value): prepared = value
        case .failure(let error): return .failure(Refusal(reason: .invalidContent, message: error.description))
        }
        guard let bundleID = prepared.template.topic ?? delivery.deviceTopic ?? bundleID else {
            return .failure(
                Refusal(reason: .missingTopic, message: "no topic: the device has none and no bundle id is configured")
            )
        }
        guard let token = DeviceToken(hex: delivery.deviceToken) else {
            return .failure(
                Refusal(reason: .invalidDeviceToken, message: "the stored device token is not a valid APNs token"))
        }
        do {
            return .success(
                try prepared.template.request(apnsID: APNsID(delivery.id), deviceToken: token, bundleID: bundleID))
        } catch {
            return .failure(Refusal(reason: .invalidContent, message: error.description))
        }
    }

    private static func prepare(_ delivery: ClaimedDelivery, shortened: Bool) -> Result<
        PreparedContent, UnreadableContent
    > {
        let message: NotificationMessage
        switch delivery.notification.message {
        case .success(let stored): message = stored
        case .failure(let unreadable): return .failure(unreadable)
        }
        if let relayed = message.relayed {
            // Sent as the client wrote it, so a shortened retry sends it unchanged and Apple's second 413 is final.
            return .success(
                PreparedContent(
                    template: PushTemplate(relayed: relayed, message: message),
                    payload: PostgresJSON(text: relayed.payload), feedbackID: nil))
        }
        guard let payload = message.payload(for: delivery.variant) else {
            return .failure(UnreadableContent(description: "the stored content has no payload"))
        }
        do {
            var template = try PushTemplate(
                message: message, payload: payload, appearance: delivery.appearance,
                notificationID: delivery.notificationID, expiresAt: delivery.expiresAt)
            if shortened {
                // Apple found the payload too large although it fit the documented limit: cut the body further.
                template = try PushTemplate(
                    message: message, payload: payload, appearance: delivery.appearance,
                    notificationID: delivery.notificationID, expiresAt: delivery.expiresAt,
                    payloadLimit: template.payloadJSON.count * 3 / 4)
            }
            return .success(
                PreparedContent(
                    template: template,
                    payload: PostgresJSON(text: String(decoding: template.payloadJSON, as: UTF8.self)),
                    feedbackID: payload.feedbackID))
        } catch {
            return .failure(UnreadableContent(description: error.description))
        }
    }
}

/// A notification's content made ready for one appearance: built once per batch, used for every device.
struct PreparedContent {
    let template: PushTemplate
    let payload: PostgresJSON
    let feedbackID: String?
}

/// Which template a delivery needs: its notification's variant, its appearance, and whether Apple asked for a
/// shorter body.
struct TemplateKey: Hashable {
    let notificationID: UUID
    let variant: PayloadVariant
    let appearance: PushAppearance
    let shortened: Bool

    init(_ delivery: ClaimedDelivery) {
        notificationID = delivery.notificationID
        variant = delivery.variant
        appearance = delivery.appearance
        shortened = delivery.facts.wasShortened
    }
}

/// Why a claimed delivery cannot become a request: Herald's reason and a message for the log.
private struct Refusal: Error {
    let reason: DeliveryReason
    let message: String
}
