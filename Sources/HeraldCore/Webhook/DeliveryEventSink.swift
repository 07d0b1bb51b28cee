public import ServiceLifecycle

/// Where the delivery engine reports deactivated devices and finally failed deliveries: an adapter outside the
/// domain (the webhook sender), which must never hold up delivery. Its `run()` sends until the task is cancelled;
/// the engine runs it beside its workers and cancels it after them, so what they report during the drain still goes
/// out.
public protocol DeliveryEventSink: Service {
    /// Takes `events` without waiting.
    func enqueue(_ events: [WebhookEvent])
}
