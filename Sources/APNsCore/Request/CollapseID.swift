/// An `apns-collapse-id`: at most 64 bytes of UTF-8, checked before sending.
public struct CollapseID: Hashable, Sendable, CustomStringConvertible {
    public static let maximumLength = 64
    public let value: String

    /// - Returns: nil when `value` is empty or longer than 64 bytes.
    public init?(_ value: String) {
        guard !value.isEmpty, value.utf8.count <= Self.maximumLength else { return nil }
        self.value = value
    }

    public var description: String { value }
}
