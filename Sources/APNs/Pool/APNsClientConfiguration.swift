import APNsCore
public import Cryptography

/// How an ``APNsConnectionPool`` connects and how long it waits.
public struct APNsClientConfiguration: Sendable {
    public var endpoint: APNsEndpoint
    /// Connections kept to the endpoint; requests are spread across them. Default 2.
    public var connectionCount: Int
    /// How long a caller waits for Apple's answer, queueing and resends included. Default 30 s.
    public var requestTimeout: Duration
    /// Limit for TCP connect plus TLS handshake. Default 10 s.
    public var connectTimeout: Duration
    /// Ping after this long without traffic. Default 60 s.
    public var pingInterval: Duration
    /// A ping unanswered this long means the connection is dead. Default 10 s.
    public var pingTimeout: Duration
    /// Trust and ALPN; set ``TLSClientConfiguration/additionalCAFile`` to trust `apns-mock`.
    public var tls: TLSClientConfiguration

    public init(
        endpoint: APNsEndpoint, connectionCount: Int = 2, requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10), pingInterval: Duration = .seconds(60),
        pingTimeout: Duration = .seconds(10), tls: TLSClientConfiguration = TLSClientConfiguration()
    ) {
        self.endpoint = endpoint
        self.connectionCount = max(1, connectionCount)
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.tls = tls
    }
}
