/// How the mock answers one request.
public enum MockVerdict: Hashable, Sendable {
    /// 200 with this `apns-id`.
    case accept(apnsID: String)
    /// An error status with Apple's reason (and, for 410, a timestamp in milliseconds).
    case reject(status: Int, reason: String, timestamp: Int64?)
    /// Never answer (to test client timeouts).
    case stall
    /// A success of the broadcast or channel management API: its status, headers and body.
    case answer(status: Int, headers: [String: String], body: [UInt8])

    public var status: Int? {
        switch self {
        case .accept: 200
        case .reject(let status, _, _): status
        case .stall: nil
        case .answer(let status, _, _): status
        }
    }
}
