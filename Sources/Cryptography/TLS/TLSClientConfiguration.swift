/// How a ``TLSClientConnection`` authenticates the server.
public struct TLSClientConfiguration: Sendable, Equatable {
    /// ALPN protocols offered, in preference order.
    public var applicationProtocols: [String]
    /// The protocol the server must select, or nil to accept any outcome.
    public var requiredApplicationProtocol: String?
    /// A PEM file of extra CA certificates trusted beside the system store (e.g. `apns-mock`'s).
    public var additionalCAFile: String?

    /// - Parameters:
    ///   - applicationProtocols: ALPN offer; defaults to `["h2"]`.
    ///   - requiredApplicationProtocol: Defaults to `"h2"`.
    ///   - additionalCAFile: Extra trusted CAs; defaults to none.
    public init(
        applicationProtocols: [String] = ["h2"],
        requiredApplicationProtocol: String? = "h2",
        additionalCAFile: String? = nil
    ) {
        self.applicationProtocols = applicationProtocols
        self.requiredApplicationProtocol = requiredApplicationProtocol
        self.additionalCAFile = additionalCAFile
    }
}
