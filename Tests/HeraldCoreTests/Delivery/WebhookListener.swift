import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A tiny local HTTP server that records what the webhook posts and answers 200, or a redirect to `redirect`.
final class WebhookListener: Sendable {
    struct Received: Sendable {
        let body: Data
        let signature: String?
        let bodySignature: String?
    }

    private let received = Mutex<[Received]>([])
    private let channel = Mutex<(any Channel)?>(nil)
    let redirect: URL?

    private init(redirect: URL?) { self.redirect = redirect }

    static func start(redirectingTo redirect: URL? = nil) async throws -> WebhookListener {
        let listener = WebhookListener(redirect: redirect)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RecordingHandler(listener: listener))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        listener.channel.withLock { $0 = bound }
        return listener
    }

    var port: Int { channel.withLock { $0?.localAddress?.port } ?? 0 }
    var url: URL { URL(string: "http://127.0.0.1:\(port)/herald-events")! }
    var requests: [Received] { received.withLock { $0 } }

    fileprivate func record(_ request: Received) { received.withLock { $0.append(request) } }

    func stop() async throws {
        try await channel.withLock { $0 }?.close()
    }
}

private final class RecordingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let listener: WebhookListener
    private var body = Data()
    private var signature: String?
    private var bodySignature: String?

    init(listener: WebhookListener) { self.listener = listener }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            body = Data()
            signature = head.headers.first(name: "Herald-Signature")
            bodySignature = head.headers.first(name: "X-Herald-Signature")
        case .body(var buffer):
            body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end:
            listener.record(.init(body: body, signature: signature, bodySignature: bodySignature))
            var headers = HTTPHeaders()
            headers.add(name: "content-length", value: "0")
            var status = HTTPResponseStatus.ok
            if let redirect = listener.redirect {
                headers.add(name: "location", value: redirect.absoluteString)
                status = .temporaryRedirect
            }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
