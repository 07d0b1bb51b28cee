/// A statement's result columns as an enum, one case each, in the order the select list has them.
///
/// ``selectList`` writes the list from `allCases` and ``PostgresRow/decode(_:as:)`` reads a case from its place
/// there, so moving a column moves both and cannot make a field read another column.
public protocol PostgresColumn: CaseIterable, Equatable {
    /// The column's expression in the select (or `RETURNING`) list.
    var expression: String { get }
}

extension PostgresColumn where Self: RawRepresentable, RawValue == String {
    public var expression: String { rawValue }
}

extension PostgresColumn {
    /// Every column's expression, in order, separated by commas.
    public static var selectList: String { allCases.map(\.expression).joined(separator: ", ") }

    /// The column's place in the select list, from 0. Inlinable, like ``PostgresRow/decode(_:as:)``, so a
    /// statement's module specializes it for its own columns instead of looking up generic metadata per cell.
    @inlinable
    public var position: Int {
        let cases = Self.allCases
        return cases.distance(from: cases.startIndex, to: cases.firstIndex(of: self)!)
    }
}

extension PostgresRow {
    /// Decodes `column` from its place in the select list.
    @inlinable
    public func decode<T: PostgresDecodable>(_ column: some PostgresColumn, as type: T.Type) throws -> T {
        try decode(column: column.position, as: type)
    }
}
