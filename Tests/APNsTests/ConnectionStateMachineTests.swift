import APNsCore
import Testing

@testable import APNs

/// The connection's protocol logic, driven event by event without a socket.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    let t0 = ContinuousClock.now
    var later: ContinuousClock.Instant { t0 + .seconds(30) }

    /// A connected machine whose server allows `limit` streams.
    func connected(limit: UInt32? = 1000) -> Machine {
        var machine = Machine()
        _ = machine.enqueue(0, deadline: later)
        _ = machine.connectSucceeded(now: t0)
        machine.streamOpened(0, streamID: 1)
        _ = machine.streamClosed(1, outcome: .responded, now: t0)
        _ = machine.settingsReceived(maxConcurrentStreams: limit)
        return machine
    }

    @Test func firstRequestConnectsAndOnlyOneStreamOpensBeforeSettings() {
        var machine = Machine()
        #expect(machine.enqueue(1, deadline: later) == [.connect])
        #expect(machine.enqueue(2, deadline: later) == [])
        #expect(machine.enqueue(3, deadline: later) == [])
        #expect(machine.connectSucceeded(now: t0) == [.openStreams([1])])
        machine.streamOpened(1, streamID: 1)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1) == [])
        let (completed, actions) = machine.streamClosed(1, outcome: .responded, now: t0)
        #expect(completed == 1)
        #expect(actions == [.openStreams([2])])
        machine.streamOpened(2, streamID: 3)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1000) == [.openStreams([3])])
    }

    @Test func streamLimitIsObeyedAsItChanges() {
        var machine = connected(limit: 2)
        #expect(machine.enqueue(10, deadline: later) == [.openStreams([10])])
        machine.streamOpened(10, streamID: 3)
        #expect(machine.enqueue(11, deadline: later) == [.openStreams([11])])
        machine.streamOpened(11, streamID: 5)
        #expect(machine.enqueue(12, deadline: later) == [])
        #expect(machine.settingsReceived(maxConcurrentStreams: 1) == [])
        #expect(machine.streamClosed(3, outcome: .responded, now: t0).actions == [])
        #expect(machine.streamClosed(5, outcome: .responded, now: t0).actions == [.openStreams([12])])
    }

    @Test func goAwayResendsStreamsAboveLastIDOnANewConnection() {
        var machine = connected()
        for ticket in UInt64(10)...13 { _ = machine.enqueue(ticket, deadline: later) }
        machine.streamOpened(10, streamID: 3)
        machine.streamOpened(11, streamID: 5)
        machine.streamOpened(12, streamID: 7)
        machine.streamOpened(13, streamID: 9)
        #expect(machine.goAwayReceived(lastStreamID: 5, errorCode: 0, now: t0) == [])
        #expect(machine.enqueue(14, deadline: later) == [], "no new streams after GOAWAY")
        #expect(machine.streamClosed(7, outcome: .refused, now: t0).completed == nil)
        #expect(machine.streamClosed(3, outcome: .responded, now: t0) == (10, []))
        let last = machine.streamClosed(5, outcome: .responded, now: t0)
        #expect(last.completed == 11)
        #expect(last.actions == [.closeConnection, .connect])
        #expect(machine.connectSucceeded(now: t0) == [.openStreams([12])])
        machine.streamOpened(12, streamID: 1)
        #expect(machine.settingsReceived(maxConcurrentStreams: 100) == [.openStreams([13, 14])])
    }

    @Test func droppedConnectionResendsEveryStreamInFlight() throws {
        var machine = connected()
        for ticket in UInt64(10)...12 { _ = machine.enqueue(ticket, deadline: later) }
        machine.streamOpened(10, streamID: 3)
        machine.streamOpened(11, streamID: 5)
        machine.streamOpened(12, streamID: 7)
        #expect(machine.connectionLost(now: t0) == [])
        let reconnect = try #require(machine.reconnectsAt)
        #expect(machine.tick(now: reconnect) == [.connect])
        #expect(machine.connectSucceeded(now: reconnect) == [.openStreams([10])])
        machine.streamOpened(10, streamID: 1)
        #expect(machine.settingsReceived(maxConcurrentStreams: 10) == [.openStreams([11, 12])])
    }

    @Test func refusedAndResetStreamsAreResent() {
        var machine = connected(limit: 1)
        _ = machine.enqueue(10, deadline: later)
        machine.streamOpened(10, streamID: 3)
        #expect(machine.streamClosed(3, outcome: .refused, now: t0) == (nil, [.openStreams([10])]))
        machine.streamOpened(10, streamID: 5)
        #expect(machine.streamClosed(5, outcome: .reset, now: t0) == (nil, [.openStreams([10])]))
    }

    @Test func requestsPastTheirDeadlineFailAndTheirStreamsAreReset() {
        var machine = connected()
        _ = machine.enqueue(10, deadline: t0 + .seconds(1))
        machine.streamOpened(10, streamID: 3)
        _ = machine.enqueue(11, deadline: t0 + .seconds(5))
        machine.streamOpened(11, streamID: 5)
        #expect(machine.tick(now: t0 + .milliseconds(500)) == [])
        #expect(machine.tick(now: t0 + .seconds(2)) == [.resetStreams([3]), .fail([10], .timedOut)])
        #expect(machine.streamClosed(3, outcome: .reset, now: t0).completed == nil, "a late close is ignored")
        #expect(machine.inFlightCount == 1)
    }

    @Test func connectFailureFailsWaitersAndBacksOff() {
        var machine = Machine()
        _ = machine.enqueue(1, deadline: later)
        _ = machine.enqueue(2, deadline: later)
        #expect(
            machine.connectFailed(.connectionFailed("refused"), now: t0) == [
                .fail([1, 2], .connectionFailed("refused"))
            ])
        #expect(machine.enqueue(3, deadline: later) == [], "waits for the backoff")
        // The first delay is 50 to 100 ms (100 ms scaled by the jitter), the second 100 to 200 ms.
        #expect(machine.tick(now: t0 + .milliseconds(49)) == [])
        #expect(machine.tick(now: t0 + .milliseconds(100)) == [.connect])
        let second = t0 + .milliseconds(100)
        #expect(
            machine.connectFailed(.connectionFailed("refused"), now: second) == [
                .fail([3], .connectionFailed("refused"))
            ])
        _ = machine.enqueue(4, deadline: later)
        #expect(machine.tick(now: second + .milliseconds(99)) == [], "second failure waits at least 100 ms")
        #expect(machine.tick(now: second + .milliseconds(200)) == [.connect])
    }

    @Test func idleConnectionPingsAndDiesWhenUnanswered() {
        var machine = connected()
        #expect(machine.tick(now: t0 + .seconds(59)) == [])
        #expect(machine.tick(now: t0 + .seconds(60)) == [.sendPing])
        machine.pingAcknowledged(now: t0 + .seconds(61))
        #expect(machine.tick(now: t0 + .seconds(100)) == [])
        #expect(machine.tick(now: t0 + .seconds(121)) == [.sendPing])
        _ = machine.enqueue(10, deadline: t0 + .seconds(300))
        machine.streamOpened(10, streamID: 3)
        #expect(machine.tick(now: t0 + .seconds(131)) == [.closeConnection], "a dead connection is a connection error")
        #expect(machine.tick(now: t0 + .seconds(131) + .milliseconds(100)) == [.connect])
    }

    @Test func cancellationAndShutdownAnswerEveryone() {
        var machine = connected(limit: 1)
        _ = machine.enqueue(10, deadline: later)
        machine.streamOpened(10, streamID: 3)
        _ = machine.enqueue(11, deadline: later)
        _ = machine.enqueue(12, deadline: later)
        #expect(machine.cancel(11) == [.fail([11], .cancelled)])
        #expect(machine.shutdown() == [.fail([10, 12], .shutDown), .closeConnection])
        #expect(machine.enqueue(13, deadline: later) == [.fail([13], .shutDown)])
    }
}
