public import Foundation

/// A push payload: the `aps` dictionary plus custom top-level keys (never inside `aps`).
public struct Payload: Hashable, Sendable {
    /// The top-level key of the `aps` dictionary; custom keys may not use it.
    public static let apsKey = "aps"

    public var aps: APS
    /// App-defined keys beside `aps`, such as `type`, `feedbackId`, `actionUrl`. A key named `aps` is ignored.
    public var custom: [String: JSONValue]

    public init(aps: APS = APS(), custom: [String: JSONValue] = [:]) {
        self.aps = aps
        self.custom = custom
    }

    /// The JSON bytes sent to Apple (sorted keys, so equal payloads encode identically).
    public func encoded() throws(PayloadError) -> Data {
        var object = custom.filter { $0.key != Self.apsKey }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let apsData = try encoder.encode(aps)
            object[Self.apsKey] = try JSONDecoder().decode(JSONValue.self, from: apsData)
            return try encoder.encode(object)
        } catch {
            throw .notEncodable(String(describing: error))
        }
    }
}

extension Payload: Codable {
    public init(from decoder: any Decoder) throws {
        var object = try [String: JSONValue](from: decoder)
        let apsValue = object.removeValue(forKey: Self.apsKey) ?? .object([:])
        let data = try JSONEncoder().encode(apsValue)
        aps = try JSONDecoder().decode(APS.self, from: data)
        custom = object
    }

    public func encode(to encoder: any Encoder) throws {
        var object = custom
        let apsData = try JSONEncoder().encode(aps)
        object[Self.apsKey] = try JSONDecoder().decode(JSONValue.self, from: apsData)
        try object.encode(to: encoder)
    }
}
