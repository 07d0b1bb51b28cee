/// One HTTP/2 request as a stream delivered it: its pseudo-headers, headers and body. The body is kept only up to one
/// byte past the largest payload Apple takes, and counted in full, so a client cannot make the ingress hold more.
struct IngressRequest: Sendable {
    /// The most body bytes kept: one past the largest payload (VoIP's), enough to tell that a body is too large.
    static let keptBodyBytes = 5121

    /// The client's IP address, when its connection has one.
    var clientAddress: String?
    var method: String?
    var path: String?
    /// Regular headers in the order they came; names are lowercase on HTTP/2.
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Every body byte received, kept or not.
    var bodyCount = 0

    /// Every value of header `name`.
    func values(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }

    /// The first value of header `name`.
    func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// Appends `bytes` to the body, keeping at most ``keptBodyBytes``.
    mutating func receive(_ bytes: some Collection<UInt8>) {
        bodyCount += bytes.count
        let room = Self.keptBodyBytes - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }
}
