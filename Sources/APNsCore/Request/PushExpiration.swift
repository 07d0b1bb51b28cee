public import Foundation

/// The `apns-expiration` header: how long Apple stores a push an offline device cannot take yet.
public enum PushExpiration: Hashable, Sendable {
    /// Deliver once; never store (`0`).
    case immediately
    /// Store until this moment (whole seconds since the epoch).
    case at(Date)

    /// The last second a header may name, 9999-12-31T23:59:59Z: past it the number is no moment PostgreSQL or Foundation
    /// can hold, and one such value would fail every push stored beside it.
    public static let latestEpochSecond: Int64 = 253_402_300_799

    /// The header value in epoch seconds.
    public var headerValue: String {
        switch self {
        case .immediately: "0"
        case .at(let date): String(max(0, Int64(date.timeIntervalSince1970.rounded(.down))))
        }
    }
}
