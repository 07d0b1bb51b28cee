/// Where the delivery engine reports deactivated devices and finally failed deliveries: an adapter outside the
/// domain (the webhook sender), which must never hold up delivery.
public protocol DeliveryEventSink: Sendable {
    /// Takes `events` without waiting.
    func enqueue(_ events: [WebhookEvent])
    /// Sends until the calling task is cancelled; the engine runs it beside its workers.
    func run() async
}
