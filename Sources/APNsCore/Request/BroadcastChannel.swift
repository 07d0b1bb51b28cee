public import Foundation

/// A broadcast channel's id as Apple makes it: base64 of unstated length (Apple warns against assuming one).
public struct ChannelID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The id, or `nil` when `text` is not base64 of 1 to 256 characters.
    public init?(_ text: String) {
        guard (1...256).contains(text.utf8.count), let bytes = Data(base64Encoded: text), !bytes.isEmpty else {
            return nil
        }
        rawValue = text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ChannelID(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a channel id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// What Apple keeps of a channel's broadcasts for devices that are offline, chosen when the channel is made.
public enum MessageStoragePolicy: Int, Hashable, Sendable, Codable, CaseIterable {
    /// Nothing is stored: each broadcast is tried once (`apns-expiration: 0`), with a higher publishing budget.
    case noStorage = 0
    /// The most recent broadcast is kept for up to 8 hours.
    case mostRecent = 1

    /// The longest Apple keeps a broadcast of a `mostRecent` channel.
    public static let longestStorage: TimeInterval = 8 * 3600
}

/// A request to Apple's channel management API (`/1/apps/<bundle id>/…` on the management host).
public enum ChannelOperation: Hashable, Sendable {
    case create(MessageStoragePolicy)
    case read(ChannelID)
    case delete(ChannelID)
    case list

    var method: String {
        switch self {
        case .create: "POST"
        case .read, .list: "GET"
        case .delete: "DELETE"
        }
    }

    func path(bundleID: String) -> String {
        self == .list ? "/1/apps/\(bundleID)/all-channels" : "/1/apps/\(bundleID)/channels"
    }

    var channelID: ChannelID? {
        switch self {
        case .read(let id), .delete(let id): id
        case .create, .list: nil
        }
    }

    /// `{"message-storage-policy": N, "push-type": "LiveActivity"}` for a create; nothing otherwise.
    var body: Data {
        guard case .create(let policy) = self else { return Data() }
        return Data(#"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#.utf8)
    }
}
