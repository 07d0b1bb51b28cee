public import Foundation
import HeraldCore
public import Hummingbird
import Logging
public import NIOCore

/// Per-request state: Hummingbird's core storage plus who is calling.
public struct HeraldRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's address; nil when the channel has none (tests that run without a socket).
    public let remoteAddress: SocketAddress?
    /// Set by ``AuthMiddleware`` from the `Authorization` header.
    var identity: Identity?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Response bodies are JSON with ISO 8601 dates and unescaped slashes (URLs stay readable).
    public var responseEncoder: JSONEncoder { Self.makeResponseEncoder() }

    static func makeResponseEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
