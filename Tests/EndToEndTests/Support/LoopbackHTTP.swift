import Foundation
import HeraldTesting
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request to a loopback server over a fresh connection. chromedriver writes header lines without a
/// space after the colon, which Foundation's URLSession on Linux rejects ("Failed writing header"), so WebDriver
/// commands go through NIO's parser instead.
enum LoopbackHTTP {
    static let requestTimeout = TimeAmount(TestTimeouts.httpRequest)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func send(
        _ method: HTTPMethod, port: Int, path: String, json body: Data? = nil,
        timeout: TimeAmount = LoopbackHTTP.requestTimeout
    ) async throws -> (status: Int, body: Data) {
        let host = "127.0.0.1"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(Self.requestTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        NIOHTTPClientResponseAggregator(maxContentLength: 64 << 20))
                    return try NIOAsyncChannel<NIOHTTPClientResponseFull, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        // Closing the connection ends the wait for an answer that never comes.
        let deadline = channel.channel.eventLoop.scheduleTask(in: timeout) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "\(host):\(port)")
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
            if body != nil { headers.add(name: "Content-Type", value: "application/json; charset=utf-8") }
            try await outbound.write(
                .head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)))
            if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            for try await response in inbound {
                var buffer = response.body ?? ByteBuffer()
                return (Int(response.head.status.code), Data(buffer.readBytes(length: buffer.readableBytes) ?? []))
            }
            throw Failure(description: "\(method) \(path): the connection closed without an answer within \(timeout)")
        }
    }
}
