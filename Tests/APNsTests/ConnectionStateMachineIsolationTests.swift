import APNsCore
import Testing

@testable import APNs

/// How the connection keeps a push that breaks connections from taking the others along, and how it backs off
/// after connection errors, driven event by event without a socket.
@Suite struct ConnectionStateMachineIsolationTests {
    typealias Machine = ConnectionStateMachine
    let t0 = ContinuousClock.now
    /// Far enough that no request expires while a test backs off.
    var later: ContinuousClock.Instant { t0 + .seconds(3600) }
    /// HTTP/2's `PROTOCOL_ERROR`, what a server answers a malformed header with.
    let protocolError: UInt32 = 1

    /// A connected machine whose server allows 1000 streams, with `tickets` open on streams 3, 5, 7, …
    func connected(
        _ configuration: Machine.Configuration = Machine.Configuration(), seed: UInt64 = 7, open tickets: [UInt64]
    ) -> Machine {
        var machine = Machine(configuration: configuration, seed: seed)
        _ = machine.enqueue(0, deadline: later)
        _ = machine.connectSucceeded(now: t0)
        machine.streamOpened(0, streamID: 1)
        _ = machine.streamClosed(1, outcome: .responded, now: t0)
        _ = machine.settingsReceived(maxConcurrentStreams: 1000)
        #expect(machine.enqueue(tickets, deadline: later) == [.openStreams(tickets)])
        for (index, ticket) in tickets.enumerated() { machine.streamOpened(ticket, streamID: Int32(3 + 2 * index)) }
        return machine
    }

    /// Waits out the backoff and connects again, the server allowing 1000 streams once its SETTINGS arrive.
    /// - Returns: The tickets the new connection opens, in order: the first on its own, before SETTINGS, then the rest.
    func reconnect(_ machine: inout Machine) throws -> [[UInt64]] {
        let at = try #require(machine.reconnectsAt, "the machine backs off")
        #expect(machine.tick(now: at - .milliseconds(1)) == [], "not before the backoff")
        #expect(machine.tick(now: at) == [.connect])
        var opened: [[UInt64]] = []
        var nextStreamID: Int32 = 1
        for actions in [machine.connectSucceeded(now: at), machine.settingsReceived(maxConcurrentStreams: 1000)] {
            for case .openStreams(let tickets) in actions {
                opened.append(tickets)
                for ticket in tickets {
                    machine.streamOpened(ticket, streamID: nextStreamID)
                    nextStreamID += 2
                }
            }
        }
        return opened
    }

    @Test func errorGoAwayResendsTheRequestsAfterABackoff() throws {
        var machine = connected(open: [10, 11, 12])
        #expect(machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0) == [.closeConnection])
        let wait = try #require(machine.reconnectsAt) - t0
        #expect(wait >= .milliseconds(50) && wait < .milliseconds(100))
        #expect(try reconnect(&machine) == [[10], [11, 12]], "one strike: sent together as before")
    }

    @Test func requestsInFlightAtTwoErrorClosesAreSentAlone() throws {
        var machine = connected(open: [10, 11, 12])
        _ = machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0)
        #expect(try reconnect(&machine) == [[10], [11, 12]])
        #expect(machine.enqueue(13, deadline: later) == [.openStreams([13])])
        machine.streamOpened(13, streamID: 7)
        // The second error close: 10, 11 and 12 have two strikes, 13 one.
        #expect(machine.connectionLost(now: t0) == [])
        #expect(try reconnect(&machine) == [[10]], "a suspect goes alone, and SETTINGS open nothing beside it")
        #expect(machine.enqueue(14, deadline: later) == [], "nothing opens while a suspect is alone")
        #expect(machine.streamClosed(1, outcome: .responded, now: t0) == (10, [.openStreams([11])]))
        machine.streamOpened(11, streamID: 3)
        #expect(machine.streamClosed(3, outcome: .responded, now: t0) == (11, [.openStreams([12])]))
        machine.streamOpened(12, streamID: 5)
        #expect(
            machine.streamClosed(5, outcome: .responded, now: t0) == (12, [.openStreams([13, 14])]),
            "once the suspects are answered, the rest go together")
    }

    @Test func aSuspectThatBreaksItsLoneConnectionFailsAndTheOthersGoOn() throws {
        var machine = connected(open: [10, 11])
        _ = machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0)
        _ = try reconnect(&machine)
        _ = machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0)
        #expect(try reconnect(&machine) == [[10]])
        #expect(machine.enqueue(12, deadline: later) == [])
        #expect(
            machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0) == [
                .fail([10], .connectionRefusedRequest), .closeConnection,
            ])
        #expect(try reconnect(&machine) == [[11]], "the next suspect goes alone")
        #expect(machine.streamClosed(1, outcome: .responded, now: t0) == (11, [.openStreams([12])]))
        machine.streamOpened(12, streamID: 3)
        #expect(machine.pendingCount == 0)
        #expect(machine.inFlightCount == 1)
    }

    @Test func aSuspectAloneOnALostConnectionFailsToo() throws {
        var machine = connected(open: [10])
        _ = machine.connectionLost(now: t0)
        _ = try reconnect(&machine)
        _ = machine.connectionLost(now: t0)
        #expect(try reconnect(&machine) == [[10]])
        #expect(machine.connectionLost(now: t0) == [.fail([10], .connectionRefusedRequest)])
        #expect(machine.reconnectsAt == nil, "nothing is left to send")
        #expect(machine.pendingCount == 0 && machine.inFlightCount == 0)
    }

    @Test func aSuspectRefusedOrTimedOutLetsTheNextOneGo() throws {
        var machine = connected(open: [10, 11, 12])
        for _ in 0..<2 {
            _ = machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0)
            _ = try reconnect(&machine)
        }
        // 10 is alone on stream 1; a refused stream is no connection error: it waits its turn again, first.
        #expect(machine.streamClosed(1, outcome: .refused, now: t0) == (nil, [.openStreams([10])]))
        machine.streamOpened(10, streamID: 3)
        #expect(machine.cancel(10) == [.resetStreams([3]), .fail([10], .cancelled), .openStreams([11])])
    }

    @Test func strikesEndWithTheAnswer() throws {
        var machine = connected(open: [10, 11])
        _ = machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0)
        #expect(try reconnect(&machine) == [[10], [11]])
        #expect(machine.streamClosed(1, outcome: .responded, now: t0).completed == 10)
        // The answered request's ticket is reused by a new request, which starts without strikes.
        #expect(machine.enqueue(10, deadline: later) == [.openStreams([10])])
        machine.streamOpened(10, streamID: 5)
        _ = machine.goAwayReceived(lastStreamID: 0, errorCode: protocolError, now: t0)
        #expect(try reconnect(&machine) == [[11]], "11 has two strikes and goes alone")
        #expect(machine.streamClosed(1, outcome: .responded, now: t0) == (11, [.openStreams([10])]))
    }

    @Test func cleanGoAwayStrikesNobodyAndReconnectsAtOnce() {
        var machine = connected(open: [10, 11, 12])
        for _ in 0..<3 {
            #expect(machine.goAwayReceived(lastStreamID: 0, errorCode: 0, now: t0) == [.closeConnection, .connect])
            #expect(machine.reconnectsAt == nil)
            #expect(machine.connectSucceeded(now: t0) == [.openStreams([10])])
            machine.streamOpened(10, streamID: 1)
            #expect(machine.settingsReceived(maxConcurrentStreams: 1000) == [.openStreams([11, 12])])
            machine.streamOpened(11, streamID: 3)
            machine.streamOpened(12, streamID: 5)
        }
    }

    @Test func errorGoAwayAfterTheProcessedStreamsAreAnsweredStrikesOnlyTheUnprocessed() throws {
        var machine = connected(open: [10, 11])
        #expect(machine.goAwayReceived(lastStreamID: 3, errorCode: protocolError, now: t0) == [])
        #expect(machine.streamClosed(3, outcome: .responded, now: t0) == (10, [.closeConnection]))
        #expect(try reconnect(&machine) == [[11]])
        _ = machine.connectionLost(now: t0)
        #expect(try reconnect(&machine) == [[11]], "11 was unprocessed at both closes")
        #expect(machine.enqueue(12, deadline: later) == [], "so it is alone")
    }

    @Test func backoffGrowsWithJitterWithinBoundsUntilAConnectionStaysUp() throws {
        var configuration = Machine.Configuration()
        // Strikes would make the request a suspect, then fail it: this test watches only the backoff.
        configuration.strikesBeforeSolo = 1000
        var machine = connected(configuration, open: [10])
        var now = t0 + .seconds(1)
        var shares: Set<Double> = []
        for failure in 1...12 {
            _ = machine.connectionLost(now: now)
            let at = try #require(machine.reconnectsAt)
            let ceiling = min(.milliseconds(100) * (1 << (failure - 1)), Duration.seconds(30))
            #expect(at - now >= ceiling / 2 && at - now < ceiling, "failure \(failure) waits \(at - now)")
            shares.insert((at - now) / ceiling)
            now = at
            #expect(try reconnect(&machine) == [[10]])
        }
        #expect(shares.count > 1, "the jitter varies")
        // A connection that stayed up 10 s starts the run of failures again.
        now = now + .seconds(10)
        _ = machine.connectionLost(now: now)
        let wait = try #require(machine.reconnectsAt) - now
        #expect(wait >= .milliseconds(50) && wait < .milliseconds(100))
    }

    @Test func theJitterComesFromTheSeed() throws {
        func firstWait(seed: UInt64) throws -> Duration {
            var machine = connected(seed: seed, open: [10])
            _ = machine.connectionLost(now: t0)
            return try #require(machine.reconnectsAt) - t0
        }
        #expect(try firstWait(seed: 1) == firstWait(seed: 1))
        let waits = try Set((1...8).map { try firstWait(seed: $0) })
        #expect(waits.count > 1)
        #expect(waits.allSatisfy { $0 >= .milliseconds(50) && $0 < .milliseconds(100) })
    }
}
