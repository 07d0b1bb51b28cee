import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Answers one HTTP/2 stream the way APNs would: collects headers and body, validates, replies.
final class MockStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: MockConnection
    private let state: MockState
    private let validator: MockRequestValidator
    private var head = MockRequestValidator.Head(headers: [], bodyCount: 0)
    private var body: [UInt8] = []
    private var neverIndexed: Set<String> = []

    init(connection: MockConnection, state: MockState, validator: MockRequestValidator) {
        self.connection = connection
        self.state = state
        self.validator = validator
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            for (name, value, indexing) in headers.headers {
                if indexing == .neverIndexed { neverIndexed.insert(name) }
                switch name {
                case ":method": head.method = value
                case ":path": head.path = value
                case _ where name.hasPrefix(":"): break
                default: head.headers.append((name, value))
                }
            }
            if let path = head.path, path.hasPrefix("/3/device/"),
                state.killsConnection(forDeviceToken: path.dropFirst("/3/device/".count))
            {
                connection.kill()
                return
            }
            if headers.endStream { respond(context: context) }
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data {
                head.bodyCount += buffer.readableBytes
                if state.capturesRequests || readsPayload { body += buffer.readableBytesView }
            }
            if data.endStream { respond(context: context) }
        default:
            break
        }
    }

    /// Whether the payload has a shape the mock checks: Live Activities, widgets, broadcasts, channel requests.
    private var readsPayload: Bool {
        if let path = head.path, !path.hasPrefix("/3/") { return true }
        return head.value("apns-push-type").map(MockPayloadRules.checkedPushTypes.contains) ?? false
    }

    private func respond(context: ChannelHandlerContext) {
        let streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? .rootStream
        if connection.isBeyondGoAway(streamID) {
            context.close(promise: nil)
            return
        }
        var verdict =
            head.path?.hasPrefix("/3/") == false
            ? validator.channelVerdict(for: head, body: body) : validator.verdict(for: head)
        if case .accept = verdict, let pushType = head.value("apns-push-type"),
            let reason = MockPayloadRules.refusal(pushType: pushType, body: body)
        {
            verdict = .reject(status: 400, reason: reason, timestamp: nil)
        }
        if case .accept = verdict, let path = head.path,
            let scripted = state.scriptedVerdict(forDeviceToken: path.dropFirst("/3/device/".count))
        {
            verdict = scripted
        }
        if case .stall = verdict { return }
        let answer = verdict
        let delay = state.responseDelay
        if delay > .zero {
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                let (handler, context) = loopBound.value
                handler.write(answer, streamID: streamID, context: context)
            }
        } else {
            write(verdict, streamID: streamID, context: context)
        }
    }

    private func write(_ verdict: MockVerdict, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        var headers: HPACKHeaders
        var payload: ByteBuffer?
        switch verdict {
        case .accept(let apnsID):
            headers = [":status": "200", "apns-id": apnsID, "apns-unique-id": UUID().uuidString.lowercased()]
            connection.requestAccepted()
        case .reject(let status, let reason, let timestamp):
            headers = [":status": String(status), "content-type": "application/json"]
            if let id = head.value("apns-id") { headers.add(name: "apns-id", value: id.lowercased()) }
            if let id = head.value("apns-request-id") { headers.add(name: "apns-request-id", value: id.lowercased()) }
            let json = timestamp.map { #"{"reason":"\#(reason)","timestamp":\#($0)}"# } ?? #"{"reason":"\#(reason)"}"#
            payload = context.channel.allocator.buffer(string: json)
        case .stall:
            return
        case .answer(let status, let extra, let body):
            headers = [":status": String(status)]
            for (name, value) in extra.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
            if !body.isEmpty {
                headers.add(name: "content-type", value: "application/json")
                payload = context.channel.allocator.buffer(bytes: body)
            }
        }
        // Recorded before the answer leaves: a client that has its answer must find the request recorded.
        let record =
            state.capturesRequests
            ? MockRecordedRequest(
                connectionID: connection.id, streamID: Int(streamID), method: head.method, path: head.path,
                headers: head.headers, neverIndexedHeaders: neverIndexed, body: body,
                verdict: verdict)
            : nil
        let trigger = state.responded(record)
        context.write(wrapOutboundOut(.headers(.init(headers: headers, endStream: payload == nil))), promise: nil)
        if let payload {
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(payload), endStream: true))), promise: nil)
        }
        context.flush()
        connection.apply(trigger)
    }
}
