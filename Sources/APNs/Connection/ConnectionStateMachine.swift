import APNsCore

/// The life of one APNs connection as pure state: events in, actions out, no I/O and no clock.
///
/// Requests are tickets with deadlines: small numbers the owner reuses (the rows of its table), so that the machine
/// keeps what it knows of each in a flat array indexed by ticket rather than in hash tables. The machine decides
/// when to connect, how many streams to open (the server's `SETTINGS_MAX_CONCURRENT_STREAMS`, starting at one as
/// APNs does), what to resend after a GOAWAY, a refused stream or a dropped connection (at-least-once, same
/// `apns-id`), when a request has waited too long, when to ping and how long to back off before reconnecting.
///
/// A request that breaks connections (a server answers a malformed header with a GOAWAY for the whole connection)
/// must not take the others along forever. So every request in flight when the server closes the connection with an
/// error (a GOAWAY with an error code, or a lost connection) gets a strike; a request with
/// ``Configuration/strikesBeforeSolo`` strikes is a suspect, sent alone on an otherwise empty connection, with nothing
/// opened beside it until it is answered. A suspect whose lone connection is closed with an error is answered
/// ``TransportFailure/connectionRefusedRequest`` and never sent again. Reconnects after connection errors back off
/// exponentially, each delay scaled by a random factor drawn from the machine's own seeded generator. A clean GOAWAY
/// (`NO_ERROR`: the server rotating its connections) strikes nobody and reconnects at once.
struct ConnectionStateMachine: Sendable {
    typealias Ticket = UInt64
    typealias Instant = ContinuousClock.Instant

    struct Configuration: Sendable, Equatable {
        /// Ping after this long without traffic.
        var pingInterval: Duration = .seconds(60)
        /// Declare the connection dead when a ping goes unanswered this long.
        var pingTimeout: Duration = .seconds(10)
        /// The longest first reconnect delay after a connection error; doubles per consecutive failure, up to
        /// ``backoffLimit``. Each delay is this ceiling scaled by a random factor in 0.5..<1, so that connections
        /// that failed together do not come back together.
        var backoffBase: Duration = .milliseconds(100)
        var backoffLimit: Duration = .seconds(30)
        /// A connection that stayed up this long ends the run of consecutive failures: its own failure backs off from
        /// the start again.
        var backoffResetAfter: Duration = .seconds(10)
        /// Connection errors a request must have been in flight at before it is sent alone.
        var strikesBeforeSolo = 2
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
        /// A full response arrived, whatever its status.
        case responded
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
        /// When the connection was made, to tell a connection that stayed up from one that failed at once.
        var since: Instant
        var goingAway = false
        var pingSentAt: Instant?
        /// The server closed this connection with an error and it was counted as a failure (once per connection):
        /// when the last stream is done, reconnect no sooner than this.
        var reconnectNotBefore: Instant?
    }

    /// What the machine knows of one ticket, at that ticket's index in ``tickets``.
    private struct TicketState: Sendable, Equatable {
        /// Set from enqueueing until the ticket is answered, failed or expired.
        var deadline: Instant?
        /// When handed out in `openStreams` and not yet given a stream id: the order it was handed out in.
        var openingOrder: UInt64?
        /// Connection errors this request was in flight at.
        var strikes = 0
    }

    let configuration: Configuration
    private var state: State = .idle
    private var pending = TicketQueue()
    /// Requests with enough strikes to be sent alone, sent before ``pending``.
    private var suspects = TicketQueue()
    /// The suspect in flight alone on the current connection: nothing else is opened while it is set. Kept outside
    /// ``State`` for the reason ``lastActivity`` is; it is cleared whenever the suspect leaves flight, and when a
    /// connection is made.
    private var solo: Ticket?
    private var tickets: [TicketState] = []
    private var openingCount = 0
    private var openingsHandedOut: UInt64 = 0
    private var streams: [Int32: Ticket] = [:]
    private var consecutiveFailures = 0
    /// Draws the backoff jitter: seeded, so that the machine stays a pure function of its events.
    private var random: SeededRandom
    /// When the current connection last showed life. Kept outside ``State``: it changes with every answer, and
    /// rewriting an enum payload that holds resilient `Instant`s goes through runtime witnesses.
    private var lastActivity: Instant?
    /// No deadline falls before this instant, so `tick` can skip scanning until then.
    private var nextDeadlineScan: Instant?

    /// - Parameter seed: Seeds the backoff jitter; the owner passes a random one, tests a constant.
    init(configuration: Configuration = Configuration(), seed: UInt64 = 0) {
        self.configuration = configuration
        random = SeededRandom(seed: seed)
    }

    var pendingCount: Int { pending.count + suspects.count }
    var inFlightCount: Int { streams.count + openingCount }
    var isShutDown: Bool { state == .shutDown }
    /// When the machine will reconnect, while it backs off.
    var reconnectsAt: Instant? {
        if case .waitingToReconnect(let until) = state { until } else { nil }
    }
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
            self[ticket].strikes = 0
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
        leaveSolo(ticket)
        putBack([ticket])
    }

    /// Opens as many queued tickets as the server allows; for the owner to call after ``holdsOpens``.
    mutating func openAvailableStreams() -> [Action] { openAvailable() }

    /// - Returns: The ticket whose caller gets the response (for ``StreamOutcome/responded``), and actions.
    mutating func streamClosed(_ streamID: Int32, outcome: StreamOutcome, now: Instant) -> (
        completed: Ticket?, actions: [Action]
    ) {
        guard let ticket = streams.removeValue(forKey: streamID) else { return (nil, drainIfGoingAway()) }
        markActivity(now)
        leaveSolo(ticket)
        switch outcome {
        case .responded:
            self[ticket].deadline = nil
            return (ticket, openAvailable() + drainIfGoingAway())
        case .refused, .reset:
            putBack([ticket])
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
        state = .connected(Connected(streamLimit: configuration.initialStreamLimit, since: now))
        lastActivity = now
        solo = nil
        return openAvailable()
    }

    /// Connecting failed: everyone waiting is told why (they may retry), and the next attempt waits.
    mutating func connectFailed(_ failure: TransportFailure, now: Instant) -> [Action] {
        guard state == .connecting else { return [] }
        let waiting = suspects.all + pending.all
        pending = TicketQueue()
        suspects = TicketQueue()
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
    /// are resent on a new connection; the rest complete here. With an error code (anything but `NO_ERROR`, 0) the
    /// close is a connection error: the unprocessed requests get a strike, and reconnecting backs off.
    mutating func goAwayReceived(lastStreamID: Int32, errorCode: UInt32, now: Instant) -> [Action] {
        guard case .connected(var connected) = state else { return [] }
        connected.goingAway = true
        lastActivity = now
        let unprocessed = streams.keys.filter { $0 > lastStreamID }.sorted().compactMap {
            streams.removeValue(forKey: $0)
        }
        var actions: [Action] = []
        if errorCode == 0 {
            for ticket in unprocessed { leaveSolo(ticket) }
            putBack(unprocessed)
        } else {
            if connected.reconnectNotBefore == nil {
                countFailure(of: connected, now: now)
                connected.reconnectNotBefore = now + backoff()
            }
            actions = strike(unprocessed)
        }
        state = .connected(connected)
        return actions + drainIfGoingAway()
    }

    /// The connection dropped: every stream in flight has an unknown outcome, gets a strike and is resent (but a
    /// suspect that was alone on it).
    mutating func connectionLost(now: Instant) -> [Action] {
        // Only a made connection can be lost: while connecting, the old connection's late loss means nothing.
        guard case .connected(let connected) = state else { return [] }
        let inFlight = streams.sorted { $0.key < $1.key }.map(\.value) + takeOpening()
        streams = [:]
        if connected.reconnectNotBefore == nil { countFailure(of: connected, now: now) }
        return strike(inFlight) + reconnectOrIdle(now: now)
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
            if pending.isEmpty && suspects.isEmpty {
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
        let everyone = (streams.sorted { $0.key < $1.key }.map(\.value) + takeOpening() + suspects.all + pending.all)
        let wasConnected = if case .connected = state { true } else { false }
        streams = [:]
        pending = TicketQueue()
        suspects = TicketQueue()
        solo = nil
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
        if !suspects.isEmpty { _ = suspects.removeAll { wanted.contains($0) } }
        if let solo, wanted.contains(solo) { self.solo = nil }
        var actions: [Action] = []
        if !streamIDs.isEmpty { actions.append(.resetStreams(streamIDs)) }
        actions.append(.fail(tickets.filter(wanted.contains), failure))
        return actions + openAvailable() + drainIfGoingAway()
    }

    private mutating func openAvailable() -> [Action] {
        guard case .connected(let connected) = state, !connected.goingAway else { return [] }
        guard !holdsOpens else { return [] }
        if solo != nil || !suspects.isEmpty { return openSolo(streamLimit: connected.streamLimit) }
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

    /// Opens the first suspect once the connection is empty, and nothing while a suspect is in flight: a suspect
    /// that breaks the connection then breaks it alone.
    private mutating func openSolo(streamLimit: Int) -> [Action] {
        guard solo == nil, streamLimit > 0, streams.isEmpty, openingCount == 0, let ticket = suspects.popFirst()
        else { return [] }
        solo = ticket
        self[ticket].openingOrder = openingsHandedOut
        openingsHandedOut += 1
        openingCount += 1
        return [.openStreams([ticket])]
    }

    /// After a GOAWAY, once the last processed stream is answered: close, and reconnect for any resends, at once
    /// after a clean GOAWAY, after the backoff after an error.
    private mutating func drainIfGoingAway() -> [Action] {
        guard case .connected(let connected) = state, connected.goingAway, streams.isEmpty, openingCount == 0
        else { return [] }
        if pending.isEmpty && suspects.isEmpty {
            state = .idle
            return [.closeConnection]
        }
        if let until = connected.reconnectNotBefore {
            state = .waitingToReconnect(until: until)
            return [.closeConnection]
        }
        state = .connecting
        return [.closeConnection, .connect]
    }

    private mutating func reconnectOrIdle(now: Instant) -> [Action] {
        if pending.isEmpty && suspects.isEmpty {
            state = .idle
            return []
        }
        state = .waitingToReconnect(until: now + backoff())
        return []
    }

    /// The requests in flight when the server closed the connection with an error: the suspect that was alone on it
    /// is answered, the others get a strike each and are resent, alone once they have enough.
    private mutating func strike(_ inFlight: [Ticket]) -> [Action] {
        var refused: [Ticket] = []
        var again: [Ticket] = []
        for ticket in inFlight {
            if ticket == solo {
                self[ticket].deadline = nil
                refused.append(ticket)
            } else {
                self[ticket].strikes += 1
                again.append(ticket)
            }
        }
        solo = nil
        putBack(again)
        return refused.isEmpty ? [] : [.fail(refused, .connectionRefusedRequest)]
    }

    /// Queues `tickets` again ahead of the others, in order: suspects to be sent alone, the rest as before.
    private mutating func putBack(_ tickets: [Ticket]) {
        let threshold = configuration.strikesBeforeSolo
        suspects.prepend(tickets.filter { self[$0].strikes >= threshold })
        pending.prepend(tickets.filter { self[$0].strikes < threshold })
    }

    /// `ticket` is no longer in flight; if it was the suspect sent alone, others may be opened again.
    private mutating func leaveSolo(_ ticket: Ticket) {
        if solo == ticket { solo = nil }
    }

    /// Counts a connection error; a connection that had stayed up long enough first ends the run of failures.
    private mutating func countFailure(of connected: Connected, now: Instant) {
        if now - connected.since >= configuration.backoffResetAfter { consecutiveFailures = 0 }
        consecutiveFailures += 1
    }

    /// The delay before the next reconnect: the ceiling (``Configuration/backoffBase`` doubled per consecutive
    /// failure, at most ``Configuration/backoffLimit``) scaled by a random factor in 0.5..<1.
    private mutating func backoff() -> Duration {
        let exponent = min(max(consecutiveFailures - 1, 0), 20)
        let ceiling = min(configuration.backoffBase * (1 << exponent), configuration.backoffLimit)
        let fraction = Double(random.next() >> 11) / Double(UInt64(1) << 53)
        return ceiling * (0.5 + 0.5 * fraction)
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
