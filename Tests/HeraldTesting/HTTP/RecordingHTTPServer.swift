public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A tiny loopback HTTP/1.1 server that records every request and answers 200 with `{}` (or a redirect to `redirect`):
/// what a webhook receiver or a trace collector sees of Herald.
public final class RecordingHTTPServer: Sendable {
    public struct Received: Sendable {
        public let path: String
        /// Header values by lowercased name.
        public let headers: [String: String]
        public let body: Data

        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    private let received = Mutex<[Received]>([])
    private let channel = Mutex<(any Channel)?>(nil)
    let redirect: URL?

    private init(redirect: URL?) { self.redirect = redirect }

    public static func start(redirectingTo redirect: URL? = nil) async throws -> RecordingHTTPServer {
        let server = RecordingHTTPServer(redirect: redirect)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RecordingHandler(server: server))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        server.channel.withLock { $0 = bound }
        return server
    }

    public var port: Int { channel.withLock { $0?.localAddress?.port } ?? 0 }
    /// The server's address with `path`.
    public func url(_ path: String = "/") -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
    public var requests: [Received] { received.withLock { $0 } }

    fileprivate func record(_ request: Received) { received.withLock { $0.append(request) } }

    public func stop() async throws {
        try await channel.withLock { $0 }?.close()
    }
}

private final class RecordingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: RecordingHTTPServer
    private var head: HTTPRequestHead?
    private var body = Data()

    init(server: RecordingHTTPServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(var buffer):
            body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end:
            var headers: [String: String] = [:]
            for (name, value) in head?.headers ?? [:] { headers[name.lowercased()] = value }
            server.record(.init(path: head?.uri ?? "", headers: headers, body: body))
            // An empty JSON object: nothing for a webhook sender to read, and a full success for an OTLP exporter.
            var answer = HTTPHeaders()
            answer.add(name: "content-type", value: "application/json")
            answer.add(name: "content-length", value: "2")
            var status = HTTPResponseStatus.ok
            if let redirect = server.redirect {
                answer.add(name: "location", value: redirect.absoluteString)
                status = .temporaryRedirect
            }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: answer))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "{}")))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
