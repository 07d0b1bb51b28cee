import APNsCore

/// The life of one APNs connection as pure state: events in, actions out, no I/O and no clock.
///
/// Requests are tickets with deadlines: small numbers the owner reuses (the rows of its table), so that the machine
/// keeps what it knows of each in a flat array indexed by ticket rather than in hash tables. The machine decides
/// when to connect, how many streams to open (the server's `SETTINGS_MAX_CONCURRENT_STREAMS`, starting at one as
/// APNs does), what to resend after a GOAWAY, a refused stream or a dropped connection (at-least-once, same
/// `apns-id`), when a request has waited too long, when to ping and how long to back off before reconnecting.
struct ConnectionStateMachine: Sendable {
    typealias Ticket = UInt64
    typealias Instant = ContinuousClock.Instant

    struct Configuration: Sendable, Equatable {
        /// Ping after this long without traffic.
        var pingInterval: Duration = .seconds(60)
        /// Declare the connection dead when a ping goes unanswered this long.
        var pingTimeout: Duration = .seconds(10)
        /// First reconnect delay after a failure; doubles per consecutive failure.
        var backoffBase: Duration = .milliseconds(100)
        var backoffLimit: Duration = .seconds(30)
        /// Streams allowed before the server's SETTINGS say otherwise.
        var initialStreamLimit = 1
        /// Used when the server sets no limit.
        var unlimitedStreamCap = 1000
    }

    enum Action: Equatable, Sendable {
        /// Open a TLS + HTTP/2 connection.
        case connect
        /// Submit these requests as new streams; report each with ``streamOpened(_:streamID:)``.
        case openStreams([Ticket])
        /// Cancel these streams (their callers already have an answer).
        case resetStreams([Int32])
        /// Answer these callers with a failure.
        case fail([Ticket], TransportFailure)
        case sendPing
        /// Close the connection (after GOAWAY drained, on shutdown, on a dead ping).
        case closeConnection
    }

    /// How a stream ended.
    enum StreamOutcome: Equatable, Sendable {
        /// A full response arrived; `accepted` when it was a success (200, or 201/204 from channel management).
        case responded(accepted: Bool)
        /// The server refused the stream before processing it (REFUSED_STREAM, or above a GOAWAY's last id).
        case refused
        /// Reset or lost without a response: the outcome is unknown.
        case reset
    }

    private enum State: Sendable, Equatable {
        case idle
        case connecting
        case connected(Connected)
        case waitingToReconnect(until: Instant)
        case shutDown
    }

    private struct Connected: Sendable, Equatable {
        var streamLimit: Int
        var goingAway = false
        var pingSentAt: Instant?
    }

    /// What the machine knows of one ticket, at that ticket's index in ``tickets``.
    private struct TicketState: Sendable, Equatable {
        /// Set from enqueueing until the ticket is answered, failed or expired.
        var deadline: Instant?
        /// When handed out in `openStreams` and not yet given a stream id: the order it was handed out in.
        var openingOrder: UInt64?
    }

    let configuration: Configuration
    private var state: State = .idle
    private var pending = TicketQueue()
    private var tickets: [TicketState] = []
    private var openingCount = 0
    private var openingsHandedOut: UInt64 = 0
    private var streams: [Int32: Ticket] = [:]
    private var consecutiveFailures = 0
    /// When the current connection last showed life. Kept outside ``State``: it changes with every answer, and
    /// rewriting an enum payload that holds resilient `Instant`s goes through runtime witnesses.
    private var lastActivity: Instant?
    /// No deadline falls before this instant, so `tick` can skip scanning until then.
    private var nextDeadlineScan: Instant?

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    var pendingCount: Int { pending.count }
    var inFlightCount: Int { streams.count + openingCount }
    var isShutDown: Bool { state == .shutDown }
    /// While true, room freed by closing streams is not handed out: the owner calls ``openAvailableStreams()``
    /// once it has handled a whole read, opening that read's worth of streams in one action.
    var holdsOpens = false

    // MARK: Requests

    mutating func enqueue(_ ticket: Ticket, deadline: Instant) -> [Action] {
        enqueue([ticket], deadline: deadline)
    }

    /// Queues `tickets` in order, all with `deadline`, and opens as many streams as allowed in one action.
    mutating func enqueue(_ tickets: [Ticket], deadline: Instant) -> [Action] {
        guard !tickets.isEmpty else { return [] }
        guard state != .shutDown else { return [.fail(tickets, .shutDown)] }
        for ticket in tickets {
            self[ticket].deadline = deadline
            pending.append(ticket)
        }
        if nextDeadlineScan.map({ deadline < $0 }) ?? true { nextDeadlineScan = deadline }
        switch state {
        case .idle:
            state = .connecting
            return [.connect]
        case .connected:
            return openAvailable()
        case .connecting, .waitingToReconnect, .shutDown:
            return []
        }
    }

    /// Whether `ticket` was handed out by ``Action/openStreams(_:)`` and is not open, answered or queued again yet.
    /// Mutating only so that the loop's call borrows its stored machine in place: a non-mutating call on a class's
    /// stored struct copies it first, retaining every array it holds, once per push.
    mutating func isOpening(_ ticket: Ticket) -> Bool {
        Int(ticket) < tickets.count && self[ticket].openingOrder != nil
    }

    mutating func streamOpened(_ ticket: Ticket, streamID: Int32) {
        guard stopOpening(ticket) else { return }
        streams[streamID] = ticket
    }

    /// The HTTP/2 layer could not submit the ticket (for example after a GOAWAY it had not yet told us of).
    mutating func streamOpenFailed(_ ticket: Ticket) {
        guard stopOpening(ticket) else { return }
        pending.prepend([ticket])
    }

    /// Opens as many queued tickets as the server allows; for the owner to call after ``holdsOpens``.
    mutating func openAvailableStreams() -> [Action] { openAvailable() }

    /// - Returns: The ticket whose caller gets the response (for ``StreamOutcome/responded(accepted:)``), and actions.
    mutating func streamClosed(_ streamID: Int32, outcome: StreamOutcome, now: Instant) -> (
        completed: Ticket?, actions: [Action]
    ) {
        guard let ticket = streams.removeValue(forKey: streamID) else { return (nil, drainIfGoingAway()) }
        markActivity(now)
        switch outcome {
        case .responded(let accepted):
            self[ticket].deadline = nil
            if accepted { consecutiveFailures = 0 }
            return (ticket, openAvailable() + drainIfGoingAway())
        case .refused, .reset:
            pending.prepend([ticket])
            return (nil, openAvailable() + drainIfGoingAway())
        }
    }

    /// The caller gave up (task cancelled).
    mutating func cancel(_ ticket: Ticket) -> [Action] {
        expire([ticket], as: .cancelled)
    }

    /// The requests cannot be sent at all (no provider token, a submit the HTTP/2 layer refused).
    mutating func fail(_ tickets: [Ticket], as failure: TransportFailure) -> [Action] {
        expire(tickets, as: failure)
    }

    // MARK: Connection

    mutating func connectSucceeded(now: Instant) -> [Action] {
        guard state == .connecting else { return [.closeConnection] }
        state = .connected(Connected(streamLimit: configuration.initialStreamLimit))
        lastActivity = now
        return openAvailable()
    }

    /// Connecting failed: everyone waiting is told why (they may retry), and the next attempt waits.
    mutating func connectFailed(_ failure: TransportFailure, now: Instant) -> [Action] {
        guard state == .connecting else { return [] }
        let waiting = pending.all
        pending = TicketQueue()
        for ticket in waiting { self[ticket].deadline = nil }
        consecutiveFailures += 1
        state = .waitingToReconnect(until: now + backoff())
        return waiting.isEmpty ? [] : [.fail(waiting, failure)]
    }

    mutating func settingsReceived(maxConcurrentStreams: UInt32?) -> [Action] {
        guard case .connected(var connected) = state else { return [] }
        connected.streamLimit = maxConcurrentStreams.map { Int($0) } ?? configuration.unlimitedStreamCap
        state = .connected(connected)
        return openAvailable()
    }

    /// The server is closing: open nothing more; streams above `lastStreamID` were never processed and
    /// are resent on a new connection; the rest complete here.
    mutating func goAwayReceived(lastStreamID: Int32, now: Instant) -> [Action] {
        guard case .connected(var connected) = state else { return [] }
        connected.goingAway = true
        state = .connected(connected)
        lastActivity = now
        let unprocessed = streams.keys.filter { $0 > lastStreamID }.sorted()
        pending.prepend(unprocessed.compactMap { streams.removeValue(forKey: $0) })
        return drainIfGoingAway()
    }

    /// The connection dropped: every stream in flight has an unknown outcome and is resent.
    mutating func connectionLost(now: Instant) -> [Action] {
        switch state {
        case .connected, .connecting: break
        case .idle, .waitingToReconnect, .shutDown: return []
        }
        let inFlight = streams.sorted { $0.key < $1.key }.map(\.value) + takeOpening()
        streams = [:]
        pending.prepend(inFlight)
        consecutiveFailures += 1
        return reconnectOrIdle(now: now)
    }

    mutating func pingAcknowledged(now: Instant) {
        guard case .connected(var connected) = state else { return }
        connected.pingSentAt = nil
        state = .connected(connected)
        lastActivity = now
    }

    /// Bytes arrived from the server.
    mutating func activity(now: Instant) { markActivity(now) }

    // MARK: Time

    /// Expires requests past their deadline, pings an idle connection, gives up on an unanswered ping
    /// and reconnects after a backoff.
    mutating func tick(now: Instant) -> [Action] {
        var actions: [Action] = []
        if let scan = nextDeadlineScan, scan <= now {
            let expired = tickets.indices.filter { tickets[$0].deadline.map { $0 <= now } ?? false }.map(Ticket.init)
            if !expired.isEmpty { actions += expire(expired, as: .timedOut) }
            nextDeadlineScan = tickets.lazy.compactMap(\.deadline).min()
        }
        switch state {
        case .connected(var connected):
            if let sentAt = connected.pingSentAt {
                if now - sentAt >= configuration.pingTimeout {
                    actions.append(.closeConnection)
                    actions += connectionLost(now: now)
                }
            } else if let lastActivity, now - lastActivity >= configuration.pingInterval {
                connected.pingSentAt = now
                state = .connected(connected)
                actions.append(.sendPing)
            }
        case .waitingToReconnect(let until) where now >= until:
            if pending.isEmpty {
                state = .idle
            } else {
                state = .connecting
                actions.append(.connect)
            }
        default:
            break
        }
        return actions
    }

    /// Fails every request and closes the connection.
    mutating func shutdown() -> [Action] {
        let everyone = (streams.sorted { $0.key < $1.key }.map(\.value) + takeOpening() + pending.all)
        let wasConnected = if case .connected = state { true } else { false }
        streams = [:]
        pending = TicketQueue()
        tickets = []
        state = .shutDown
        var actions: [Action] = everyone.isEmpty ? [] : [.fail(everyone, .shutDown)]
        if wasConnected { actions.append(.closeConnection) }
        return actions
    }

    // MARK: Helpers

    private mutating func expire(_ tickets: [Ticket], as failure: TransportFailure) -> [Action] {
        let wanted = Set(
            tickets.filter {
                Int($0) < self.tickets.count && (self[$0].deadline != nil || self[$0].openingOrder != nil)
            })
        guard !wanted.isEmpty else { return [] }
        for ticket in wanted {
            self[ticket].deadline = nil
            _ = stopOpening(ticket)
        }
        let streamIDs = streams.filter { wanted.contains($0.value) }.map(\.key).sorted()
        for id in streamIDs { streams[id] = nil }
        _ = pending.removeAll { wanted.contains($0) }
        var actions: [Action] = []
        if !streamIDs.isEmpty { actions.append(.resetStreams(streamIDs)) }
        actions.append(.fail(tickets.filter(wanted.contains), failure))
        return actions + openAvailable() + drainIfGoingAway()
    }

    private mutating func openAvailable() -> [Action] {
        guard case .connected(let connected) = state, !connected.goingAway else { return [] }
        guard !holdsOpens else { return [] }
        var room = connected.streamLimit - streams.count - openingCount
        var opened: [Ticket] = []
        while room > 0, let ticket = pending.popFirst() {
            opened.append(ticket)
            self[ticket].openingOrder = openingsHandedOut
            openingsHandedOut += 1
            openingCount += 1
            room -= 1
        }
        return opened.isEmpty ? [] : [.openStreams(opened)]
    }

    /// After a GOAWAY, once the last processed stream is answered: close, and reconnect for any resends.
    private mutating func drainIfGoingAway() -> [Action] {
        guard case .connected(let connected) = state, connected.goingAway, streams.isEmpty, openingCount == 0
        else { return [] }
        state = pending.isEmpty ? .idle : .connecting
        return pending.isEmpty ? [.closeConnection] : [.closeConnection, .connect]
    }

    private mutating func reconnectOrIdle(now: Instant) -> [Action] {
        if pending.isEmpty {
            state = .idle
            return []
        }
        // The first loss reconnects at once; repeated losses back off.
        if consecutiveFailures <= 1 {
            state = .connecting
            return [.connect]
        }
        state = .waitingToReconnect(until: now + backoff())
        return []
    }

    private func backoff() -> Duration {
        let exponent = min(max(consecutiveFailures - 1, 0), 20)
        return min(configuration.backoffBase * (1 << exponent), configuration.backoffLimit)
    }

    /// The state of `ticket`, grown on first use.
    private subscript(ticket: Ticket) -> TicketState {
        get { tickets[Int(ticket)] }
        _modify {
            let index = Int(ticket)
            if index >= tickets.count {
                tickets.append(contentsOf: repeatElement(TicketState(), count: index + 1 - tickets.count))
            }
            yield &tickets[index]
        }
    }

    /// Ends `ticket`'s opening; false when it was not opening.
    private mutating func stopOpening(_ ticket: Ticket) -> Bool {
        guard isOpening(ticket) else { return false }
        self[ticket].openingOrder = nil
        openingCount -= 1
        return true
    }

    /// Every ticket being opened, in the order handed out, which stops being opened.
    private mutating func takeOpening() -> [Ticket] {
        guard openingCount > 0 else { return [] }
        let opening = tickets.indices.filter { tickets[$0].openingOrder != nil }
            .sorted { tickets[$0].openingOrder! < tickets[$1].openingOrder! }.map(Ticket.init)
        for ticket in opening { self[ticket].openingOrder = nil }
        openingCount = 0
        return opening
    }

    private mutating func markActivity(_ now: Instant) {
        guard case .connected = state else { return }
        lastActivity = now
    }
}
