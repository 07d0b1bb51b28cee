import APNsCore
import Cryptography
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension APNsConnection {
    /// The thread-confined half of a connection: socket, HTTP/2 session, state machine and waiting callers.
    ///
    /// Unchecked `Sendable`: it is handed to its ``ConnectionThread`` once, in ``APNsConnection/takeLoop()``, and from
    /// then on touched only by that thread.
    final class Loop: @unchecked Sendable {
        private struct Link {
            let tls: TLSClientConnection
            let session: HTTP2Session
            var output: [UInt8] = []
            var written = 0
        }

        private let id: Int
        private let configuration: APNsClientConfiguration
        /// The `:authority` of every request, built once.
        private let authority: String
        private let tlsContext: TLSContext
        private let tokens: ProviderTokenSource
        private let logger: Logger
        // The state touched for every push is exempt from runtime exclusivity checks, which showed in the profile:
        // only this loop's thread reaches it, and no access to it outlives the statement that makes it.
        @exclusivity(unchecked) private var machine: ConnectionStateMachine
        /// Every request taken from the inbox and not yet answered; its rows are the machine's tickets.
        @exclusivity(unchecked) private var waiting = WaitingTable()
        /// Batch answers of this turn, one chunk per batch, handed over together by ``deliverAnswers()``.
        @exclusivity(unchecked) private var answers: [(sink: PushAnswerSink, chunk: [PushAnswer])] = []
        /// Reused by every request, so that writing its headers allocates nothing once warm.
        @exclusivity(unchecked) private var headerBlock = HeaderBlock()
        private var link: Link?
        /// A connect thread is making the TLS connection; its outcome arrives through the inbox.
        private var connecting = false
        /// Unowned rather than weak, which showed in the profile as a weak load per answer: the connection outlives its
        /// loop (the pool holds it, and the thread holds both while the loop runs).
        private unowned(unsafe) var owner: APNsConnection?
        /// When deadlines are checked next.
        private(set) var nextTick = ContinuousClock.now
        /// How often deadlines are checked while requests are open; an idle connection checks once a second.
        private static let busyTickInterval: Duration = .milliseconds(50)
        private static let idleTickInterval: Duration = .seconds(1)
        /// The most answers of one batch a turn reserves room for at once.
        private static let chunkCapacity = 256

        init(
            id: Int, configuration: APNsClientConfiguration, tlsContext: TLSContext, tokens: ProviderTokenSource,
            logger: Logger
        ) {
            self.id = id
            self.configuration = configuration
            authority = configuration.endpoint.authority
            self.tlsContext = tlsContext
            self.tokens = tokens
            self.logger = logger
            var machineConfiguration = ConnectionStateMachine.Configuration()
            machineConfiguration.pingInterval = configuration.pingInterval
            machineConfiguration.pingTimeout = configuration.pingTimeout
            machine = ConnectionStateMachine(
                configuration: machineConfiguration, seed: UInt64.random(in: UInt64.min...UInt64.max))
        }

        func attach(to connection: APNsConnection) { owner = connection }

        /// Takes in what the inbox holds, carries out the machine's actions, writes what is queued and hands out the
        /// answers gathered since the last turn.
        /// - Returns: Whether the loop goes on; false once it was stopped and has answered everyone.
        func turn() -> Bool {
            guard let connection = owner else { return false }
            let delivery = connection.takeInbox()
            var now = ContinuousClock.now
            if let outcome = delivery.connectOutcome { finishConnecting(outcome) }
            if !delivery.submissions.isEmpty {
                let tickets = delivery.submissions.map { waiting.insert($0, takenAt: now) }
                perform(machine.enqueue(tickets, deadline: now + configuration.requestTimeout))
                nextTick = min(nextTick, now + Self.busyTickInterval)
            }
            if !delivery.cancellations.isEmpty {
                for ticket in waiting.tickets(submittedAs: Set(delivery.cancellations)) {
                    perform(machine.cancel(ticket))
                }
            }
            if delivery.stopping {
                // Repeated while a connect thread finishes: the machine has nobody left to fail the second time.
                perform(machine.shutdown())
                deliverAnswers()
                // Its TLS connection is closed here, on this thread, when it arrives.
                nextTick = now + Self.idleTickInterval
                return connecting
            }
            now = ContinuousClock.now
            if now >= nextTick {
                perform(machine.tick(now: now))
                let idle = machine.pendingCount == 0 && machine.inFlightCount == 0
                nextTick = now + (idle ? Self.idleTickInterval : Self.busyTickInterval)
            }
            flush()
            deliverAnswers()
            return true
        }

        /// The socket to `poll`, if connected: readable always, writable while output waits.
        var pollRequest: pollfd? {
            guard let current = link else { return nil }
            let events = Int16(POLLIN) | (current.output.isEmpty ? 0 : Int16(POLLOUT))
            return pollfd(fd: current.tls.fileDescriptor, events: events, revents: 0)
        }

        // MARK: Actions

        private func perform(_ actions: [ConnectionStateMachine.Action]) {
            for action in actions {
                switch action {
                case .connect: connect()
                case .openStreams(let tickets): open(tickets)
                case .resetStreams(let ids): for id in ids { link?.session.resetStream(id) }
                case .fail(let tickets, let failure):
                    if failure == .connectionRefusedRequest { reportRefused(tickets) }
                    for ticket in tickets { complete(ticket, with: .failed(failure)) }
                case .sendPing:
                    do {
                        try link?.session.submitPing()
                    } catch {
                        logger.debug("ping not sent", metadata: [APNsMetadataKey.error: "\(error)"])
                    }
                case .closeConnection: closeLink()
                }
            }
        }

        /// Connects on a thread of its own: the TCP connect and TLS handshake block (up to the connect timeout), and
        /// this thread serves the pool's other connections meanwhile.
        private func connect() {
            guard let connection = owner else { return }
            connecting = true
            let (endpoint, context, timeout) = (configuration.endpoint, tlsContext, configuration.connectTimeout)
            // Weak: once the outcome is handed over the loop may end, and it must hold OpenSSL's objects last.
            let thread = Thread { [weak context] in
                var outcome: APNsConnection.ConnectOutcome? = .init(
                    result: Self.makeConnection(to: endpoint, context: context, timeout: timeout))
                connection.connectFinished(&outcome)
            }
            thread.name = "apns-connect-\(id)"
            thread.start()
        }

        /// A function of its own, so that its reference to the context ends before the outcome is handed over.
        private static func makeConnection(
            to endpoint: APNsEndpoint, context: TLSContext?, timeout: Duration
        ) -> Result<TLSClientConnection, TLSError> {
            // The loop keeps its context until the connect thread is done, so this only guards the impossible.
            guard let context else { return .failure(.configurationFailed("the connection was stopped")) }
            return Result { () throws(TLSError) in
                try TLSClientConnection(host: endpoint.host, port: endpoint.port, context: context, timeout: timeout)
            }
        }

        private func finishConnecting(_ outcome: APNsConnection.ConnectOutcome) {
            connecting = false
            let endpoint = configuration.endpoint
            do {
                let tls = try outcome.result.get()
                let session = try HTTP2Session()
                link = Link(tls: tls, session: session)
                logger.debug("connected to APNs", metadata: [APNsMetadataKey.endpoint: "\(endpoint)"])
                perform(machine.connectSucceeded(now: .now))
            } catch {
                logger.info(
                    "cannot connect to APNs",
                    metadata: [APNsMetadataKey.endpoint: "\(endpoint)", APNsMetadataKey.error: "\(error)"])
                perform(machine.connectFailed(.connectionFailed(String(describing: error)), now: .now))
            }
        }

        private func open(_ tickets: [ConnectionStateMachine.Ticket]) {
            guard let session = link?.session else {
                for ticket in tickets { machine.streamOpenFailed(ticket) }
                return
            }
            let token: ProviderToken
            do {
                token = try tokens.currentToken()
            } catch {
                perform(machine.fail(tickets, as: .credentialsUnavailable(error.description)))
                return
            }
            // Taken out of `self` while the tickets are opened: handing a stored property on copies it, per push.
            var block = HeaderBlock()
            swap(&block, &headerBlock)
            defer { swap(&block, &headerBlock) }
            for ticket in tickets {
                // Opening an earlier ticket may have failed this one meanwhile (a lost connection answers everyone).
                guard machine.isOpening(ticket) else { continue }
                do throws(OpenFailure) {
                    let opened = try waiting.withRequest(of: ticket) { request throws(OpenFailure) in
                        // A value HTTP/2 forbids would make the server close the connection, with every push on it.
                        if let unsafe = request.unsafeHeader { throw .unsafeHeader(unsafe.name) }
                        request.writeHeaders(into: &block, authority: authority, authorization: token.authorization)
                        do throws(HTTP2Session.Failure) {
                            return try session.submitRequest(block, body: request.payload)
                        } catch {
                            throw .submit(error)
                        }
                    }
                    guard let streamID = opened else { continue }
                    waiting.setToken(token, of: ticket)
                    machine.streamOpened(ticket, streamID: streamID)
                } catch {
                    switch error {
                    case .unsafeHeader(let name): perform(machine.fail([ticket], as: .unsafeHeaderValue(name)))
                    case .submit(let failure): perform(machine.fail([ticket], as: .protocolError(failure.description)))
                    }
                }
            }
        }

        /// Why a ticket's stream was not opened.
        private enum OpenFailure: Error {
            /// The request's header of this name has a value ``HeaderValue`` refuses.
            case unsafeHeader(String)
            case submit(HTTP2Session.Failure)
        }

        /// Logs the requests about to be answered ``TransportFailure/connectionRefusedRequest``: rare, and what an
        /// operator wants to find by `apns-id`.
        private func reportRefused(_ tickets: [ConnectionStateMachine.Ticket]) {
            for ticket in tickets {
                logger.info(
                    "APNs closed the connection over a push sent alone after earlier errors; it is not sent again",
                    metadata: [
                        APNsMetadataKey.apnsID: "\(waiting.sentID(of: ticket).map(String.init(describing:)) ?? "?")"
                    ])
            }
        }

        /// Answers `ticket`'s caller; `now` (when the answer arrived) gives a batch answer its latency.
        private func complete(
            _ ticket: ConnectionStateMachine.Ticket, with result: PushResult, now: ContinuousClock.Instant = .now
        ) {
            guard let entry = waiting.remove(ticket) else { return }
            owner?.outstanding.subtract(1, ordering: .relaxed)
            if case .rejected(let rejection) = result, let token = entry.token {
                switch rejection.reason {
                case .expiredProviderToken: tokens.reportExpired(token)
                case .tooManyProviderTokenUpdates: tokens.reportTooManyUpdates(token)
                default: break
                }
            }
            switch entry.submission.reply {
            case .caller(_, let continuation):
                continuation.resume(returning: result)
            case .batch(let sink, let index):
                let answer = PushAnswer(index: index, result: result, latency: waiting.waited(entry, now: now))
                // A turn's answers belong to a few batches at most: a linear search beats hashing here.
                if let position = answers.firstIndex(where: { $0.sink === sink }) {
                    answers[position].chunk.append(answer)
                } else {
                    // Sized for the turn's share of the batch up front, rather than grown answer by answer.
                    var chunk: [PushAnswer] = []
                    chunk.reserveCapacity(min(sink.size, Self.chunkCapacity))
                    chunk.append(answer)
                    answers.append((sink, chunk))
                }
            }
        }

        /// Hands every batch the answers this turn gathered for it.
        private func deliverAnswers() {
            guard !answers.isEmpty else { return }
            for (sink, chunk) in answers { sink.deliver(chunk) }
            answers.removeAll(keepingCapacity: true)
        }

        private func closeLink() {
            guard let current = link else { return }
            current.session.terminate()
            flush()
            link = nil
        }

        // MARK: I/O

        /// Writes everything nghttp2 has queued, as far as the socket takes it.
        private func flush() {
            // Taken out of `link` while writing so the output buffer is never copied on write.
            guard var current = link.take() else { return }
            do {
                try current.session.drainOutput(into: &current.output)
                while current.written < current.output.count {
                    let result = try current.output.withUnsafeBytes { bytes in
                        try current.tls.write(UnsafeRawBufferPointer(rebasing: bytes[current.written...]))
                    }
                    if case .transferred(let count) = result {
                        current.written += count
                    } else if result == .closed {
                        throw TLSError.ioFailed("connection closed by APNs")
                    } else {
                        break
                    }
                }
                if current.written == current.output.count {
                    current.output.removeAll(keepingCapacity: true)
                    current.written = 0
                }
                link = current
            } catch {
                link = current
                lose(current, because: error)
            }
        }

        /// Reads and handles what the socket holds; the thread calls it when `poll` reports the socket ready.
        func readAvailable(into buffer: inout [UInt8]) {
            guard let current = link else { return }
            do {
                readLoop: while true {
                    let result = try buffer.withUnsafeMutableBytes { bytes in
                        try current.tls.read(into: bytes)
                    }
                    switch result {
                    case .transferred(let count):
                        machine.activity(now: .now)
                        try buffer.withUnsafeBytes { bytes in
                            try current.session.receive(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                        }
                        handle(current.session.takeEvents(), from: current.tls)
                        // Handling may have closed this connection, or already replaced it with a new one.
                        guard link?.tls === current.tls else { return }
                    case .wantRead, .wantWrite:
                        break readLoop
                    case .closed:
                        throw TLSError.ioFailed("connection closed by APNs")
                    }
                }
                if let session = link?.session, !session.isAlive, let current = link {
                    lose(current, because: TLSError.ioFailed("HTTP/2 session ended"))
                }
            } catch {
                lose(current, because: error)
            }
        }

        private func lose(_ lost: Link, because error: any Error) {
            guard link.map({ $0.tls === lost.tls }) ?? true else { return }
            logger.info("APNs connection lost", metadata: [APNsMetadataKey.error: "\(error)"])
            link = nil
            perform(machine.connectionLost(now: .now))
        }

        // MARK: Server events

        /// Feeds the events of the connection `source` to the state machine, stopping if that connection
        /// is closed midway: stream ids of an old connection mean nothing to its successor.
        private func handle(_ events: [HTTP2Session.Event], from source: TLSClientConnection) {
            let now = ContinuousClock.now
            // The streams that the read's answers free are opened together afterwards: one token read and one
            // action instead of one per answer.
            machine.holdsOpens = true
            defer {
                machine.holdsOpens = false
                perform(machine.openAvailableStreams())
            }
            for event in events {
                guard link?.tls === source else { return }
                switch event {
                case .settings(let limit):
                    perform(machine.settingsReceived(maxConcurrentStreams: limit))
                case .goAway(let lastStreamID, let errorCode, let debugData):
                    logger.info(
                        "APNs sent GOAWAY",
                        metadata: [
                            APNsMetadataKey.lastStreamID: "\(lastStreamID)", APNsMetadataKey.errorCode: "\(errorCode)",
                            APNsMetadataKey.debugData: "\(debugData)",
                        ])
                    perform(machine.goAwayReceived(lastStreamID: lastStreamID, errorCode: errorCode, now: now))
                case .pingAcknowledged:
                    machine.pingAcknowledged(now: now)
                case .streamClosed(let streamID, let response, _, let refused):
                    let outcome: ConnectionStateMachine.StreamOutcome
                    if response != nil {
                        outcome = .responded
                    } else if refused {
                        outcome = .refused
                    } else {
                        outcome = .reset
                    }
                    let (ticket, actions) = machine.streamClosed(streamID, outcome: outcome, now: now)
                    if let ticket, let response, let sentID = waiting.sentID(of: ticket) {
                        let result = PushResult.parse(
                            status: response.status, apnsIDHeader: response.apnsID, uniqueID: response.uniqueID,
                            channelID: response.channelID, body: response.body, sentID: sentID)
                        complete(ticket, with: result, now: now)
                    }
                    perform(actions)
                }
            }
        }
    }
}
