/// A statement's parameters as an enum, one case each, in binding order.
///
/// A case's place among `allCases` is its number, and it prints as its placeholder (`"\(Parameter.limit)"` is `$1`
/// for the first case), so the SQL text and ``PostgresBindings/init(_:_:)`` number the values from the same list:
/// moving a case renumbers both.
public protocol PostgresParameter: CaseIterable, Equatable, CustomStringConvertible {}

extension PostgresParameter {
    /// The parameter's number in the SQL, from 1.
    public var number: Int {
        let cases = Self.allCases
        return cases.distance(from: cases.startIndex, to: cases.firstIndex(of: self)!) + 1
    }

    /// The placeholder SQL names the parameter by.
    public var description: String { "$\(number)" }
}
