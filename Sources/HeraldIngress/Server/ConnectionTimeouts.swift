import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake is not finished in time, or that passed the idle time with nothing read or
/// written (the `IdleStateHandler` in front of TLS says so): a client that opens connections and says nothing must
/// not hold them, and their file descriptors, for good. Sits right after the TLS handler, which announces the
/// handshake's end.
final class ConnectionTimeouts: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// Why the ingress closed a connection it had accepted.
    enum Refusal: Error {
        /// ``IngressConfiguration/maxConnections`` were open already.
        case tooManyConnections
    }

    private let handshake: TimeAmount
    private var deadline: Scheduled<Void>?

    init(handshake: TimeAmount) {
        self.handshake = handshake
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: handshake) { loopBound.value.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case TLSUserEvent.handshakeCompleted:
            deadline?.cancel()
            deadline = nil
        case is IdleStateHandler.IdleStateEvent:
            context.close(promise: nil)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}
