import HTTPTypes
import HeraldCore

extension DomainError {
    /// The answer for a refusal of the domain.
    var apiError: APIError {
        switch kind {
        case .notFound: APIError(.notFound, .notFound, message, field: field)
        case .conflict: APIError(.conflict, .conflict, message, field: field)
        case .invalid: APIError(.unprocessableContent, .validationFailed, message, field: field)
        }
    }
}
