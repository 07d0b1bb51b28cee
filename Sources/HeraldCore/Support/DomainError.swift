/// A request the domain refused, with what the client needs to correct it.
///
/// Messages never hold device tokens or key material; `field` names the offending input when there is one.
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The named thing does not exist (or is not visible to the caller).
        case notFound
        /// The request contradicts the stored state (a taken email, an owner that still owns projects, a reused
        /// idempotency key).
        case conflict
        /// The request is well-formed but breaks a rule.
        case invalid
    }

    public var kind: Kind
    public var message: String
    public var field: String?

    public init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }

    public static func notFound(_ message: String, field: String? = nil) -> DomainError {
        DomainError(.notFound, message, field: field)
    }

    public static func conflict(_ message: String, field: String? = nil) -> DomainError {
        DomainError(.conflict, message, field: field)
    }

    public static func invalid(_ message: String, field: String? = nil) -> DomainError {
        DomainError(.invalid, message, field: field)
    }

    public var description: String { field.map { "\(kind) (\($0)): \(message)" } ?? "\(kind): \(message)" }
}
