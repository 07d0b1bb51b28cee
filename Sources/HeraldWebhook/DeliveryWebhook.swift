import AsyncHTTPClient
import Cryptography
public import Foundation
public import HeraldCore
public import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Tells the backend about deactivated devices and finally failed deliveries: batched JSON `POST`s to the
/// configured URL, retried with backoff. The delivery engine's ``DeliveryEventSink``.
///
/// Each request is signed in `Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`: with the time
/// inside the signed text, a receiver that refuses old timestamps cannot be fed a captured batch again. The older
/// `X-Herald-Signature: sha256=<hex HMAC of the body>` is still sent for receivers written against it. Redirects
/// are never followed: the secret-signed events go to the configured host alone.
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
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        while !Task.isCancelled {
            let generation = doorbell.generation
            if pendingCount == 0 {
                await doorbell.wait(after: generation, timeout: .seconds(3600))
                continue
            }
            if pendingCount < configuration.batchSize {
                try? await Task.sleep(for: configuration.flushInterval)
            }
            await sendNextBatch(through: client, retrying: true)
        }
        while pendingCount > 0 {
            guard await sendNextBatch(through: client, retrying: false) else { break }
        }
        do {
            try await client.shutdown()
        } catch {
            logger.warning("webhook client did not shut down cleanly", metadata: ["herald.error": "\(error)"])
        }
    }

    @discardableResult
    private func sendNextBatch(through client: HTTPClient, retrying: Bool) async -> Bool {
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
            if await post(body, through: client) { return true }
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
    private func post(_ body: Data, through client: HTTPClient) async -> Bool {
        var request = HTTPClientRequest(url: configuration.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let timestamp = Int(Date().timeIntervalSince1970)
        request.headers.add(
            name: Self.signatureHeader, value: Self.signature(of: body, secret: configuration.secret, at: timestamp))
        request.headers.add(
            name: Self.bodySignatureHeader, value: Self.bodySignature(of: body, secret: configuration.secret))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: TimeAmount(configuration.requestTimeout))
            // Read (a little of) the answer so the connection can be reused; its content does not matter.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return true }
            if (300..<400).contains(status) {
                logger.warning(
                    "webhook answered a redirect, which is never followed: set HERALD_WEBHOOK_URL to its target",
                    metadata: ["herald.webhook.status": "\(status)"])
            } else {
                logger.warning("webhook answered \(status)")
            }
        } catch {
            logger.warning("webhook request failed", metadata: ["herald.error": "\(error)"])
        }
        return false
    }

    /// The signature header's name.
    public static let signatureHeader = "Herald-Signature"
    /// The header of the signature of the body alone, which a captured request can be replayed with; kept for
    /// receivers written before ``signatureHeader``.
    public static let bodySignatureHeader = "X-Herald-Signature"

    /// `t=<timestamp>,v1=<lowercase hex HMAC-SHA256 of "<timestamp>." followed by body, under secret>`.
    public static func signature(of body: Data, secret: String, at timestamp: Int) -> String {
        "t=\(timestamp),v1=" + hexHMAC(Data("\(timestamp).".utf8) + body, secret: secret)
    }

    /// `sha256=` and the lowercase hex HMAC-SHA256 of `body` under `secret`.
    public static func bodySignature(of body: Data, secret: String) -> String {
        "sha256=" + hexHMAC(body, secret: secret)
    }

    private static func hexHMAC(_ message: Data, secret: String) -> String {
        HMACSHA256.authenticationCode(for: message, key: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
