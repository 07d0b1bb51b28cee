public import Foundation

/// The `apns-id` of a push: a UUID, sent and compared in lowercase.
public struct APNsID: Hashable, Sendable, CustomStringConvertible {
    public let uuid: UUID

    public init(_ uuid: UUID = UUID()) { self.uuid = uuid }

    /// Parses the canonical 8-4-4-4-12 form, in either case.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// The lowercase canonical form Apple echoes.
    public var description: String { uuid.uuidString.lowercased() }
}
