public import APNsCore
public import Foundation
public import Logging
public import Postgres
public import ServiceLifecycle
import Synchronization
import Tracing

/// Turns `pending` delivery rows into pushes and records what Apple said (ARCHITECTURE.md steps Claim,
/// Send, Record). Any number of engines, in any number of processes, share one database.
///
/// ``run()`` works until its task is cancelled, its service group shuts down or ``shutdownGracefully()`` is called;
/// either way it
/// stops claiming, lets sends in flight finish for ``DeliveryEngineConfiguration/shutdownGracePeriod``
/// (then cancels them and puts their rows back to `pending`), records every result and returns. It does
/// not start or stop the APNs transport: its owner runs it around the engine.
///
/// Wake-ups: whoever inserts deliveries sends `NOTIFY` on ``HeraldChannel/deliveries``; workers also poll every
/// ``DeliveryEngineConfiguration/pollInterval``. A `NOTIFY` on ``HeraldChannel/deliveryControl`` with payload
/// ``resumeMessage`` resumes a paused key (`herald deliveries resume`).
public final class DeliveryEngine: Service {
    /// The payload on ``HeraldChannel/deliveryControl`` that resumes sending after a credential pause.
    public static let resumeMessage = "resume"

    public let configuration: DeliveryEngineConfiguration
    public let metrics: DeliveryMetrics
    let store: DeliveryStore
    let apns: any APNsTransport
    let webhook: (any DeliveryEventSink)?
    let logger: Logger
    /// The time every decision uses (backoff, pauses, the planner's expiry checks); tests pass their own.
    let now: @Sendable () -> Date
    let doorbell = Doorbell()
    /// Permits to send, shared by the workers: the crash window follows the link.
    let window: SendWindow
    /// Decided attempts of every batch in flight, written together.
    let recordQueue = RecordQueue()
    /// Transactions writing results at once: while one commits, the next gathers what arrives meanwhile. One more
    /// writes only the immediate lane's results, so they never wait for a bulk write under way.
    static let recordWriters = 2
    /// The send window's part kept for the immediate lane's own claims: a sixteenth, which narrows a bulk fan-out's
    /// window by as much.
    static let immediateReserve = 1.0 / 16
    /// One burst guard per app and environment.
    let burstGuards: Mutex<BurstGuards>
    let state = Mutex(EngineState())

    struct EngineState {
        var stopping = false
        /// Why Apple last refused the key or team, until a probe is answered normally again; nil otherwise.
        var pausedReason: DeliveryReason?
        /// The apps and environments whose burst guard is tripped, as last logged.
        var trippedBurstGuards: Set<BurstGuards.Scope> = []
        /// Whether Apple is answering normally, probed, or refusing the service (then sending pauses).
        var health = SendHealth()
        /// A worker is sending the one probe push; the others wait for its answer.
        var probing = false
        /// Send tasks in flight, cancelled when the grace period ends.
        var sends: [Int: Task<Void, Never>] = [:]
        var nextSendID = 0
        var graceOver = false
    }

    /// - Parameters:
    ///   - client: The database; give it at least ``DeliveryEngineConfiguration/workers`` + 6 connections (the workers'
    ///     claims, the immediate lane's, three writers, the rescuer and the outbox depth; the heartbeat every few
    ///     seconds shares them).
    ///   - apns: Apple, in both environments (`APNsClient` in production).
    ///   - webhook: Receives deactivations and final failures; the engine runs it, and stops it after its workers.
    ///   - now: The wall clock.
    public init(
        client: PostgresClient, apns: any APNsTransport, configuration: DeliveryEngineConfiguration,
        metrics: DeliveryMetrics,
        webhook: (any DeliveryEventSink)? = nil, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        store = DeliveryStore(client: client)
        self.apns = apns
        self.configuration = configuration
        self.metrics = metrics
        self.webhook = webhook
        self.now = now
        self.logger = logger
        burstGuards = Mutex(BurstGuards(template: configuration.burstGuard))
        window = SendWindow(bounds: configuration.sendWindowBounds, reservedFraction: Self.immediateReserve)
        state.withLock { $0.health = SendHealth(credentialBackoff: configuration.credentialBackoff) }
    }

    /// Delivers until cancelled, graceful shutdown or ``shutdownGracefully()``; see the type's documentation.
    public func run() async {
        await withGracefulShutdownHandler {
            await deliver()
        } onGracefulShutdown: {
            self.logger.info("stopping: no new claims; finishing what is in flight")
            self.shutdownGracefully()
        }
    }

    private func deliver() async {
        logger.info(
            "delivery engine started",
            metadata: [
                DeliveryMetadataKey.worker: "\(configuration.workerID)",
                DeliveryMetadataKey.workers: "\(configuration.workers)",
            ])
        // Workers are unstructured so that cancelling run() only asks them to stop: they still record
        // what they sent, which needs the database after the cancellation.
        let workers =
            (0..<configuration.workers).map { _ in Task { await self.claimLoop(.worker) } }
            + [Task { await self.claimLoop(.immediateLane) }]
        let writers =
            (0..<Self.recordWriters).map { _ in Task { await self.writeLoop(.any) } }
            + [Task { await self.writeLoop(.urgentOnly) }]
        let startedAt = now()
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listen() }
                group.addTask { await self.rescueLoop() }
                group.addTask { await self.depthLoop() }
                group.addTask { await self.heartbeatLoop(startedAt: startedAt) }
                if let webhook { group.addTask { try? await webhook.run() } }
                for worker in workers { await worker.value }
                recordQueue.finish()
                for writer in writers { await writer.value }
                group.cancelAll()
            }
        } onCancel: {
            self.shutdownGracefully()
        }
        await removeHeartbeat()
        logger.info("delivery engine stopped", metadata: [DeliveryMetadataKey.worker: "\(configuration.workerID)"])
    }

    /// Stops claiming; sends in flight get the grace period, then are cancelled and released.
    public func shutdownGracefully() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        doorbell.ring()
        let grace = configuration.shutdownGracePeriod
        Task {
            try? await Task.sleep(for: grace)
            let sends = self.state.withLock { state in
                state.graceOver = true
                return Array(state.sends.values)
            }
            for send in sends { send.cancel() }
        }
    }

    /// Ends a pause at once (`herald deliveries resume`, say after replacing a refused key): the next claim probes.
    public func resume() {
        state.withLock { $0.health.resume() }
        logger.notice(
            "sending resumes: probing APNs with one push",
            metadata: [DeliveryMetadataKey.keyID: "\(configuration.keyID)"])
        doorbell.ring()
    }

    /// Asks every running engine, in any process, to end its pause now (`herald deliveries resume`).
    public static func requestResume(through client: PostgresClient) async throws {
        _ = try await client.query("SELECT pg_notify(\(HeraldChannel.deliveryControl), \(resumeMessage))")
    }

    /// Whether a credential refusal has paused sending and no probe has been answered normally since.
    public var isPaused: Bool { state.withLock { $0.pausedReason != nil } }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Who claims: one of the workers, or the immediate lane's own loop.
    enum Claimer {
        case worker
        /// Claims only `immediate` deliveries, from the send window's reserve, as soon as the doorbell rings: such a
        /// push waits neither for a worker's share of the window to come free nor behind a large bulk claim. The
        /// workers leave it as many due immediate deliveries as the reserve holds and take the rest (first in their
        /// claims, ``ClaimShares``), so a burst larger than the reserve still goes at full speed.
        case immediateLane

        var part: SendWindow.Part { self == .worker ? .general : .reserve }
        var lane: DeliveryLane? { self == .worker ? nil : .immediate }
    }

    /// Takes permits from the send window first, then claims only that many deliveries and sends them at once, and
    /// goes on to the next claim while their answers come: so a push leaves as soon as an earlier one is recorded, and
    /// nothing claimed waits for a permit while its lease runs. A worker's claim waits for a share of the window (a
    /// quarter with four workers), so a few free permits do not become many small claims; the immediate lane's loop
    /// takes what its reserve holds.
    private func claimLoop(_ claimer: Claimer) async {
        await withDiscardingTaskGroup { batches in
            while !isStopping {
                let generation = doorbell.generation
                let (limit, isProbe, pause) = claimLimit(for: claimer)
                guard limit > 0 else {
                    // At most a poll interval, so the end of a pause is seen on the engine's clock, whichever it is.
                    await doorbell.wait(
                        after: generation, timeout: min(pause ?? configuration.pollInterval, configuration.pollInterval)
                    )
                    continue
                }
                let least = claimer == .worker ? window.limit / configuration.workers : 1
                let permits = await window.acquire(upTo: limit, atLeast: least, from: claimer.part)
                guard permits > 0, !isStopping else {
                    window.returnUnused(permits, to: claimer.part)
                    if isProbe { endProbe() }
                    continue
                }
                let batch: [ClaimedDelivery]
                let claimStart = DefaultTracerClock.now
                do {
                    // A worker leaves what the immediate lane's loop can take at once to it, unless it probes.
                    batch = try await store.claim(
                        limit: permits, workerID: configuration.workerID, lease: configuration.lease,
                        lane: claimer.lane, leavingImmediate: claimer == .worker && !isProbe ? window.reserve : 0)
                } catch {
                    window.returnUnused(permits, to: claimer.part)
                    if isProbe { endProbe() }
                    logger.error("claiming deliveries failed", metadata: [DeliveryMetadataKey.error: "\(error)"])
                    await doorbell.wait(after: generation, timeout: configuration.pollInterval)
                    continue
                }
                let claim = TraceInterval.since(claimStart)
                window.returnUnused(permits - batch.count, to: claimer.part)
                if isProbe {
                    // Nobody else sends until the probe is answered and recorded.
                    if !batch.isEmpty { await process(batch, claim: claim, permitsFrom: claimer.part) }
                    endProbe()
                } else if !batch.isEmpty {
                    batches.addTask { await self.process(batch, claim: claim, permitsFrom: claimer.part) }
                }
                if batch.count < permits {
                    await doorbell.wait(after: generation, timeout: configuration.pollInterval)
                }
            }
        }
    }

    /// Writes what the batches queued, everything that came while the last write ran, until the workers are done.
    private func writeLoop(_ kind: RecordQueue.Writer) async {
        while let entries = await recordQueue.next(for: kind) {
            let start = DefaultTracerClock.now
            let committed = await record(entries.flatMap(\.attempts))
            let write = RecordedWrite(interval: .since(start), committed: committed)
            for entry in entries { entry.written.resume(returning: write) }
        }
    }

    /// Rings for new deliveries and resumes on `herald deliveries resume`.
    private func listen() async {
        let listener = NotificationListener(
            configuration: store.client.configuration,
            channels: [HeraldChannel.deliveries, HeraldChannel.deliveryControl], subject: "new deliveries",
            logger: logger)
        await listener.run { notification in
            if notification.channel == HeraldChannel.deliveries {
                self.doorbell.ring()
            } else if notification.payload == Self.resumeMessage {
                self.resume()
            }
        }
    }

    private func rescueLoop() async {
        while !Task.isCancelled {
            do {
                let rescued = try await store.rescueExpiredLeases(limit: configuration.batchSize * 4)
                if rescued > 0 {
                    logger.warning(
                        "returned deliveries with expired leases to pending",
                        metadata: [DeliveryMetadataKey.count: "\(rescued)"])
                    doorbell.ring()
                }
            } catch {
                if !Task.isCancelled {
                    logger.error("rescuing expired leases failed", metadata: [DeliveryMetadataKey.error: "\(error)"])
                }
            }
            try? await Task.sleep(for: configuration.rescueInterval)
        }
    }

    private func depthLoop() async {
        while !Task.isCancelled {
            if let depth = try? await store.outboxDepth() { metrics.setOutboxDepth(depth) }
            if let queue = try? await OutboxStore(client: store.client).queue() { metrics.setOutbox(queue) }
            try? await Task.sleep(for: configuration.depthInterval)
        }
    }
}
