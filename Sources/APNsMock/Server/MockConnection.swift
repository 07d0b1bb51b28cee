import NIOCore
import NIOHTTP2

/// One accepted HTTP/2 connection: counts its streams, raises the stream limit after the first valid
/// request, and carries out GOAWAY, drop and kill faults.
///
/// Every method runs on the connection's event loop (stream channels share their parent's loop),
/// which is what makes the unchecked `Sendable` sound.
final class MockConnection: NIOHTTP2StreamDelegate, @unchecked Sendable {
    let id: Int
    private let state: MockState
    private let raisedLimit: Int
    private var channel: (any Channel)?
    private var activeStreams = 0
    private var highestStreamID = HTTP2StreamID(0)
    private var raised = false
    private(set) var goAwayLastStreamID: HTTP2StreamID?

    init(id: Int, state: MockState, raisedLimit: Int) {
        self.id = id
        self.state = state
        self.raisedLimit = raisedLimit
    }

    func attach(_ channel: any Channel) { self.channel = channel }

    func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
        activeStreams += 1
        highestStreamID = max(highestStreamID, id)
        state.observeConcurrentStreams(activeStreams)
    }

    func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
        activeStreams -= 1
        // After GOAWAY, leave the client a moment to read the last answers and close first, as Apple does;
        // closing at once could discard responses still queued for the socket.
        if goAwayLastStreamID != nil && activeStreams == 0, let channel = self.channel {
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }

    /// Whether a stream arrived after this connection's GOAWAY and must not be processed.
    func isBeyondGoAway(_ id: HTTP2StreamID) -> Bool {
        goAwayLastStreamID.map { id > $0 } ?? false
    }

    /// After the first valid request, allow many streams, as APNs does.
    func requestAccepted() {
        guard !raised, let channel else { return }
        raised = true
        let settings = HTTP2Frame(
            streamID: .rootStream,
            payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: raisedLimit)])))
        channel.writeAndFlush(settings, promise: nil)
    }

    /// Kills the whole connection as a server does over a header it cannot take: GOAWAY with `PROTOCOL_ERROR` and
    /// last stream 0 (claiming no stream was processed), then close; streams arriving meanwhile get no answer.
    /// Counted once per connection.
    func kill() {
        guard let channel, goAwayLastStreamID != .rootStream else { return }
        goAwayLastStreamID = .rootStream
        state.connectionKilled()
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: .rootStream, errorCode: .protocolError, opaqueData: nil))
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
    }

    func apply(_ trigger: MockState.Trigger) {
        guard let channel else { return }
        switch trigger {
        case .none:
            break
        case .goAway:
            guard goAwayLastStreamID == nil else { return }
            goAwayLastStreamID = highestStreamID
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: highestStreamID, errorCode: .noError, opaqueData: nil))
            channel.writeAndFlush(frame, promise: nil)
            // Close once the streams at or below the last id are answered; streamClosed does that.
            channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        case .drop:
            channel.close(promise: nil)
        }
    }
}
