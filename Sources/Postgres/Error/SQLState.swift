/// A five-character SQLSTATE code, as PostgreSQL reports it.
///
/// `~=` matches a whole class: `case SQLState.Class.integrityConstraintViolation` matches 23505 and 23503.
public struct SQLState: Hashable, Sendable, CustomStringConvertible {
    public let code: String

    public init(_ code: String) { self.code = code }

    public var description: String { code }

    /// The two-character class the code belongs to.
    public var classCode: String { String(code.prefix(2)) }

    public static let uniqueViolation = SQLState("23505")
    public static let foreignKeyViolation = SQLState("23503")
    public static let notNullViolation = SQLState("23502")
    public static let checkViolation = SQLState("23514")
    public static let serializationFailure = SQLState("40001")
    public static let deadlockDetected = SQLState("40P01")
    public static let adminShutdown = SQLState("57P01")
    public static let queryCanceled = SQLState("57014")
    public static let undefinedTable = SQLState("42P01")
    public static let syntaxError = SQLState("42601")
    public static let invalidBinaryRepresentation = SQLState("22P03")
    /// A setting was given a value it does not take (an unknown `TimeZone`, say).
    public static let invalidParameterValue = SQLState("22023")
    /// A lock was not granted within `lock_timeout` (or `NOWAIT` found it taken).
    public static let lockNotAvailable = SQLState("55P03")

    /// A SQLSTATE class (the first two characters of a code).
    public struct Class: Hashable, Sendable {
        public let code: String
        public init(_ code: String) { self.code = code }

        public static let integrityConstraintViolation = Class("23")
        public static let transactionRollback = Class("40")
        public static let connectionException = Class("08")
        public static let operatorIntervention = Class("57")
        public static let syntaxErrorOrAccessRuleViolation = Class("42")
    }

    public static func ~= (pattern: Class, state: SQLState) -> Bool { state.classCode == pattern.code }
}
