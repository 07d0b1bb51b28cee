import NIOCore
import NIOHPACK
import NIOHTTP2

/// Reads one HTTP/2 stream's request, has it answered off the event loop, and writes the answer back on it. A stream
/// the client reset, or whose connection closed, before its answer was ready is simply not answered: the push it
/// carried, if stored, is delivered all the same.
final class IngressStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let answer: @Sendable (IngressRequest) async -> IngressAnswer
    private let inFlight: InFlightRequests
    private var request = IngressRequest()
    private var dispatched = false
    /// Whether the handler is still in its stream's pipeline, so its context may be written to.
    private var attached = false

    init(inFlight: InFlightRequests, answer: @escaping @Sendable (IngressRequest) async -> IngressAnswer) {
        self.inFlight = inFlight
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        attached = true
        request.clientAddress = context.channel.parent?.remoteAddress?.ipAddress
    }

    func handlerRemoved(context: ChannelHandlerContext) { attached = false }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !dispatched else { return }
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            for (name, value, _) in headers.headers {
                switch name {
                case ":method": request.method = value
                case ":path": request.path = value
                case _ where name.hasPrefix(":"): break
                default: request.headers.append((name, value))
                }
            }
            if headers.endStream { dispatch(context: context) }
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data { request.receive(buffer.readableBytesView) }
            if data.endStream { dispatch(context: context) }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Hands the complete request to ``answer`` on a task of its own, and writes its answer back on the event loop.
    private func dispatch(context: ChannelHandlerContext) {
        dispatched = true
        let request = request
        let answer = answer
        let inFlight = inFlight
        let eventLoop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: eventLoop)
        inFlight.begin()
        Task {
            let reply = await answer(request)
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.write(reply, context: context)
                inFlight.end()
            }
        }
    }

    private func write(_ reply: IngressAnswer, context: ChannelHandlerContext) {
        guard attached else { return }
        var headers: HPACKHeaders = [":status": String(reply.status)]
        for (name, value) in reply.headers { headers.add(name: name, value: value) }
        let body = reply.body
        context.write(wrapOutboundOut(.headers(.init(headers: headers, endStream: body == nil))), promise: nil)
        if let body {
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
        }
        context.flush()
    }
}
