import AsyncHTTPClient
import Cryptography
public import Foundation
public import HeraldCore
public import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Tells the backend about deactivated devices and finally failed deliveries: batched JSON `POST`s to the
/// configured URL, signed in the `X-Herald-Signature` header as `sha256=<hex HMAC-SHA256 of the body under the
/// secret>`, retried with backoff. The delivery engine's ``DeliveryEventSink``.
///
/// ``enqueue(_:)`` never waits, so a slow or failing webhook never holds up delivery; beyond
/// ``Configuration/queueLimit`` the oldest events are dropped with a warning. ``run()`` sends until cancelled.
public final class DeliveryWebhook: DeliveryEventSink {
    public struct Configuration: Sendable {
        public var url: URL
        public var secret: String
        /// Events per request. Default 100.
        public var batchSize: Int
        /// How long events may wait for a batch to fill. Default 1 s.
        public var flushInterval: Duration
        /// Tries per batch before it is dropped. Default 5.
        public var maximumAttempts: Int
        /// The first retry's delay, doubled each time. Default 1 s.
        public var initialBackoff: Duration
        /// Events kept while the webhook is failing. Default 10,000.
        public var queueLimit: Int
        /// Per request. Default 10 s.
        public var requestTimeout: Duration

        public init(
            url: URL, secret: String, batchSize: Int = 100, flushInterval: Duration = .seconds(1),
            maximumAttempts: Int = 5, initialBackoff: Duration = .seconds(1), queueLimit: Int = 10_000,
            requestTimeout: Duration = .seconds(10)
        ) {
            self.url = url
            self.secret = secret
            self.batchSize = max(1, batchSize)
            self.flushInterval = flushInterval
            self.maximumAttempts = max(1, maximumAttempts)
            self.initialBackoff = initialBackoff
            self.queueLimit = max(1, queueLimit)
            self.requestTimeout = requestTimeout
        }
    }

    public let configuration: Configuration
    private let queue = Mutex<[WebhookEvent]>([])
    private let doorbell = Doorbell()
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Queues events for the next batch; returns at once.
    public func enqueue(_ events: [WebhookEvent]) {
        guard !events.isEmpty else { return }
        let dropped = queue.withLock { queue in
            queue.append(contentsOf: events)
            let excess = max(0, queue.count - configuration.queueLimit)
            queue.removeFirst(excess)
            return excess
        }
        if dropped > 0 {
            logger.warning(
                "webhook queue full; dropped the oldest events", metadata: ["herald.webhook.dropped": "\(dropped)"])
        }
        doorbell.ring()
    }

    /// Events waiting to be sent.
    public var pendingCount: Int { queue.withLock { $0.count } }

    /// Sends batches until cancelled, then tries once more to send what is queued.
    public func run() async {
        while !Task.isCancelled {
            let generation = doorbell.generation
            if pendingCount == 0 {
                await doorbell.wait(after: generation, timeout: .seconds(3600))
                continue
            }
            if pendingCount < configuration.batchSize {
                try? await Task.sleep(for: configuration.flushInterval)
            }
            await sendNextBatch(retrying: true)
        }
        while pendingCount > 0 {
            guard await sendNextBatch(retrying: false) else { break }
        }
    }

    @discardableResult
    private func sendNextBatch(retrying: Bool) async -> Bool {
        let events = queue.withLock { queue in
            let batch = Array(queue.prefix(configuration.batchSize))
            queue.removeFirst(batch.count)
            return batch
        }
        guard !events.isEmpty else { return true }
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            body = try encoder.encode(WebhookBatch(events: events))
        } catch {
            logger.error("cannot encode webhook events", metadata: ["herald.error": "\(error)"])
            return false
        }
        var delay = configuration.initialBackoff
        for attempt in 1...(retrying ? configuration.maximumAttempts : 1) {
            if await post(body) { return true }
            guard attempt < configuration.maximumAttempts, retrying, !Task.isCancelled else { break }
            try? await Task.sleep(for: delay)
            delay *= 2
        }
        logger.error(
            "webhook failed; events dropped",
            metadata: [
                "herald.webhook.events": "\(events.count)", "herald.webhook.host": "\(configuration.url.host ?? "")",
            ])
        return false
    }

    /// One `POST` through AsyncHTTPClient. Foundation's `URLSession` on Linux can abort the whole process when a
    /// request fails or times out ("Trying to access a behaviour for a task that in not in the registry",
    /// swift-corelibs-foundation #3292); it took the test process down with an unreachable webhook.
    private func post(_ body: Data) async -> Bool {
        var request = HTTPClientRequest(url: configuration.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: Self.signatureHeader, value: Self.signature(of: body, secret: configuration.secret))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await HTTPClient.shared.execute(
                request, timeout: TimeAmount(configuration.requestTimeout))
            // Read (a little of) the answer so the connection can be reused; its content does not matter.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            if (200..<300).contains(Int(response.status.code)) { return true }
            logger.warning("webhook answered \(response.status.code)")
        } catch {
            logger.warning("webhook request failed", metadata: ["herald.error": "\(error)"])
        }
        return false
    }

    /// The signature header's name.
    public static let signatureHeader = "X-Herald-Signature"

    /// `sha256=` and the lowercase hex HMAC-SHA256 of `body` under `secret`.
    public static func signature(of body: Data, secret: String) -> String {
        "sha256="
            + HMACSHA256.authenticationCode(for: body, key: Data(secret.utf8)).map { String(format: "%02x", $0) }
            .joined()
    }
}
