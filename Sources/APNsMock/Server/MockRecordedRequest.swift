/// One request as `apns-mock` received it, with its answer.
public struct MockRecordedRequest: Sendable {
    /// Which accepted TCP connection carried it (1, 2, …).
    public let connectionID: Int
    public let streamID: Int
    public let method: String?
    public let path: String?
    /// Header fields in arrival order (pseudo-headers excluded).
    public let headers: [(name: String, value: String)]
    /// Names of the fields the client sent as never-indexed HPACK literals (pseudo-headers included).
    public let neverIndexedHeaders: Set<String>
    public let body: [UInt8]
    public let verdict: MockVerdict

    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The device token from `:path`.
    public var deviceToken: String? {
        path.flatMap { $0.hasPrefix("/3/device/") ? String($0.dropFirst("/3/device/".count)) : nil }
    }
}
