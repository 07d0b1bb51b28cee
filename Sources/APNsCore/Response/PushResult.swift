public import Foundation

/// What happened to one push.
public enum PushResult: Hashable, Sendable, CustomStringConvertible {
    /// Apple accepted the push (200).
    case accepted(PushReceipt)
    /// Apple refused the push with a status and reason.
    case rejected(PushRejection)
    /// No answer from Apple (timeout, connection failure, shutdown, cancellation).
    case failed(TransportFailure)

    public var description: String {
        switch self {
        case .accepted(let receipt): "accepted apns-id \(receipt.apnsID)"
        case .rejected(let rejection): rejection.description
        case .failed(let failure): "not delivered: \(failure)"
        }
    }
}

/// Apple's acceptance of a push.
public struct PushReceipt: Hashable, Sendable {
    public let apnsID: APNsID
    /// `apns-unique-id`: the sandbox's id of a push, and every broadcast's, to look it up in Apple's console.
    public let uniqueID: String?
    /// `apns-channel-id` of a created channel.
    public let channelID: ChannelID?
    /// The response body: a channel's settings or the list of channels; empty for pushes.
    public let body: Data

    public init(apnsID: APNsID, uniqueID: String?, channelID: ChannelID? = nil, body: Data = Data()) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.channelID = channelID
        self.body = body
    }
}

/// Apple's refusal of a push.
public struct PushRejection: Hashable, Sendable, CustomStringConvertible {
    public let status: Int
    public let reason: APNsReason
    public let apnsID: APNsID?
    /// For 410: when Apple last knew the token was valid.
    public let timestamp: Date?

    public init(status: Int, reason: APNsReason, apnsID: APNsID?, timestamp: Date?) {
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.timestamp = timestamp
    }

    public var description: String {
        "rejected \(status) \(reason.name)" + (apnsID.map { " apns-id \($0)" } ?? "")
    }
}

/// Why Apple gave no answer.
public enum TransportFailure: Hashable, Sendable, CustomStringConvertible {
    /// No answer within the request timeout.
    case timedOut
    /// The caller cancelled the send.
    case cancelled
    /// The client stopped before an answer came.
    case shutDown
    /// No connection could be made (DNS, TCP, TLS, certificate, ALPN); the text says which.
    case connectionFailed(String)
    /// The provider token could not be made (key problem); the text says which.
    case credentialsUnavailable(String)
    /// No signing key on record may sign this push (its app's team, its topic, its environment); the text says which.
    case noSigningKey(String)
    /// HTTP/2 failed in a way the peer caused.
    case protocolError(String)
    /// A header value of the request breaks ``HeaderValue``'s rule, so it was not sent: a server answers such a
    /// header by closing the whole connection. The text names the header, never its value.
    case unsafeHeaderValue(String)
    /// The request was sent alone, after being in flight at earlier connection errors, and the server closed that
    /// connection with an error too: the request itself breaks connections, so it is not sent again.
    case connectionRefusedRequest

    public var description: String {
        switch self {
        case .timedOut: "timed out waiting for APNs"
        case .cancelled: "cancelled"
        case .shutDown: "APNs client shut down"
        case .connectionFailed(let detail): "connection failed: \(detail)"
        case .credentialsUnavailable(let detail): "provider token unavailable: \(detail)"
        case .noSigningKey(let detail): "no signing key: \(detail)"
        case .protocolError(let detail): "HTTP/2 error: \(detail)"
        case .unsafeHeaderValue(let header): "not sent: the \(header) header's value is unfit for HTTP/2"
        case .connectionRefusedRequest: "APNs closed the connection over this push, sent alone, after earlier closes"
        }
    }
}
