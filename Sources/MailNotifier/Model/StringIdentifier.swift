/// A value that is a string underneath (an id, a category name) but must not be mixed up with other strings.
///
/// Conforming types get literal syntax, a plain-string description and, through `RawRepresentable`, a JSON form
/// that is the bare string.
public protocol StringIdentifier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
where RawValue == String {
    init(rawValue: String)
}

extension StringIdentifier {
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }
}
