public import Cryptography

/// How the APNs ingress listens, whom it trusts and how long a client waits for Apple's answer.
public struct IngressConfiguration: Sendable {
    /// What a client is answered with.
    public enum Mode: String, Sendable, CaseIterable {
        /// Apple's final answer for the push, or, past ``IngressConfiguration/wait``, 200 with `herald-queued: true`.
        case relay
        /// 200 as soon as the push is stored durably.
        case accept
    }

    /// Address to listen on.
    public var host: String
    /// Port to listen on; 0 picks a free one.
    public var port: Int
    /// PEM file of the server's certificate chain, leaf first.
    public var certificateFile: String
    /// PEM file of the certificate's private key.
    public var privateKeyFile: String
    /// The longest a client's stream waits for Apple's final answer in ``Mode/relay``. Default 10 s.
    public var wait: Duration
    public var mode: Mode
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`, as Apple advertises after the first request. Default 1000.
    public var maxConcurrentStreams: Int
    /// How often the final answers of the pushes clients wait for are read. Default 20 ms.
    public var answerPollInterval: Duration
    /// How long the apps and signing keys read are trusted before they are read again (a topic or key id not
    /// among them is looked up again after a second). Default 30 s.
    public var catalogLifetime: Duration
    /// How long an API key's lookup is reused. Default 10 s: a revoked key stops pushing within that.
    public var apiKeyLifetime: Duration
    /// Lookups of API keys not remembered that one client address may cause per second, and at once
    /// (``LookupPacer``). Default 10 and 20, as the HTTP API's refusal allowance.
    public var newKeyLookupsPerSecond: Double
    public var newKeyLookupBurst: Int
    /// Opens signing keys sealed in the database (`HERALD_MASTER_KEY_FILE`), to verify tokens they sign.
    public var masterKey: AES256GCM?
    /// Connections open at once; more are closed as they come. Default 1,000.
    public var maxConnections: Int
    /// How long a new connection may take to finish its TLS handshake before it is closed. Default 10 s.
    public var handshakeTimeout: Duration
    /// How long a connection may pass with nothing read or written before it is closed. Default 10 minutes (a client
    /// that keeps its connection open between pushes pings it, as Apple asks).
    public var idleTimeout: Duration

    public init(
        host: String = "127.0.0.1", port: Int, certificateFile: String, privateKeyFile: String,
        wait: Duration = .seconds(10), mode: Mode = .relay, maxConcurrentStreams: Int = 1000,
        answerPollInterval: Duration = .milliseconds(20), catalogLifetime: Duration = .seconds(30),
        apiKeyLifetime: Duration = .seconds(10), newKeyLookupsPerSecond: Double = 10, newKeyLookupBurst: Int = 20,
        masterKey: AES256GCM? = nil, maxConnections: Int = 1000, handshakeTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(600)
    ) {
        self.host = host
        self.port = port
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.wait = wait
        self.mode = mode
        self.maxConcurrentStreams = maxConcurrentStreams
        self.answerPollInterval = answerPollInterval
        self.catalogLifetime = catalogLifetime
        self.apiKeyLifetime = apiKeyLifetime
        self.newKeyLookupsPerSecond = newKeyLookupsPerSecond
        self.newKeyLookupBurst = newKeyLookupBurst
        self.masterKey = masterKey
        self.maxConnections = maxConnections
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
    }
}
