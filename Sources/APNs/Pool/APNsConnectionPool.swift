public import APNsCore
public import Cryptography
public import Logging
import PollSupport
import Synchronization

/// N connections to one APNs endpoint for one team, sharing one provider token; each request goes to
/// the connection with the fewest unanswered requests.
///
/// Lifetime is Service-style: ``run()`` starts the connections and keeps them until its task is
/// cancelled, then answers every open request with ``TransportFailure/shutDown``. Requests sent before
/// `run()` starts wait for it. Use one pool per (environment, team).
public final class APNsConnectionPool: PushTransport {
    private let connections: [APNsConnection]
    private let thread: ConnectionThread
    private let nextTicket = Atomic<UInt64>(0)
    private let logger: Logger

    /// - Parameters:
    ///   - configuration: Endpoint, connection count, timeouts and trust.
    ///   - tokens: The team's provider token, shared by every connection.
    ///   - logger: Connection events are logged at info and below.
    /// - Throws: ``TLSError`` when the TLS configuration is unusable (for example an unreadable CA file).
    public init(configuration: APNsClientConfiguration, tokens: ProviderTokenSource, logger: Logger) throws(TLSError) {
        let context = try TLSContext(configuration: configuration.tls)
        let wakePipe: WakePipe
        do {
            wakePipe = try WakePipe()
        } catch {
            // A process out of descriptors: said at start-up like any other reason the pool cannot run.
            throw .ioFailed(error.description)
        }
        connections = (0..<configuration.connectionCount).map {
            APNsConnection(
                id: $0, configuration: configuration, tlsContext: context, tokens: tokens, wakePipe: wakePipe,
                logger: logger)
        }
        thread = ConnectionThread(connections: connections, wakePipe: wakePipe)
        self.logger = logger
    }

    /// Runs the connections until the calling task is cancelled.
    public func run() async {
        thread.start()
        logger.debug("APNs pool started", metadata: [APNsMetadataKey.connections: "\(connections.count)"])
        while !Task.isCancelled {
            // Sleep ends early, by throwing, when the task is cancelled.
            try? await Task.sleep(for: .seconds(3600))
        }
        for connection in connections { await connection.stop() }
    }

    public func send(_ request: PushRequest) async throws -> PushResult {
        try Task.checkCancellation()
        let ticket = nextTicket.add(1, ordering: .relaxed).newValue
        let connection = leastBusyConnection(startingAt: Int(ticket % UInt64(connections.count)))
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                connection.submit(.init(ticket: ticket, reply: .caller(request, continuation)))
            }
        } onCancel: {
            connection.cancel([ticket])
        }
    }

    /// Spreads `requests` over the connections, the least busy first, and hands each connection its share at once;
    /// every connection answers a turn's worth in one chunk.
    public func send(_ requests: [PushRequest]) -> PushAnswers {
        let (answers, output) = PushAnswers.makeStream()
        guard !requests.isEmpty else {
            output.finish()
            return answers
        }
        let sink = PushAnswerSink(output: output, requests: requests)
        let lastTicket = nextTicket.add(UInt64(requests.count), ordering: .relaxed).newValue
        let firstTicket = lastTicket - UInt64(requests.count) + 1
        var loads = connections.map { $0.outstanding.load(ordering: .relaxed) }
        var shares = [[APNsConnection.Submission]](repeating: [], count: connections.count)
        for index in requests.indices {
            var target = 0
            for candidate in loads.indices where loads[candidate] < loads[target] { target = candidate }
            loads[target] += 1
            shares[target].append(.init(ticket: firstTicket + UInt64(index), reply: .batch(sink, index: index)))
        }
        let tickets = shares.map { $0.map(\.ticket) }
        output.onTermination = { [connections] termination in
            guard case .cancelled = termination else { return }
            sink.abandon()
            for (connection, share) in zip(connections, tickets) where !share.isEmpty { connection.cancel(share) }
        }
        for (connection, share) in zip(connections, shares) where !share.isEmpty {
            connection.submit(contentsOf: share)
        }
        return answers
    }

    private func leastBusyConnection(startingAt start: Int) -> APNsConnection {
        var best = connections[start]
        var bestLoad = best.outstanding.load(ordering: .relaxed)
        for offset in 1..<connections.count {
            let candidate = connections[(start + offset) % connections.count]
            let load = candidate.outstanding.load(ordering: .relaxed)
            if load < bestLoad {
                best = candidate
                bestLoad = load
            }
        }
        return best
    }
}
