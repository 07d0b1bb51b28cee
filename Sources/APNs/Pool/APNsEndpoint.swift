public import APNsCore

/// Where an APNs connection goes: Apple's host on 443 (or 2197), or any host and port for testing.
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
    }

    public init(environment: APNsEnvironment) {
        self.init(host: environment.defaultHost, port: 443)
    }

    /// The `:authority` pseudo-header.
    var authority: String { port == 443 ? host : "\(host):\(port)" }

    public var description: String { "\(host):\(port)" }
}
