public import Foundation

/// A person of the backend as Herald knows them, with their personal preferences.
public struct User: Sendable, Equatable {
    /// Herald's own key.
    public var id: UUID
    /// The backend's id for this user.
    public var externalID: ExternalID
    public var email: String
    public var name: String
    public var push: PushPreferences
    public var emailPreferences: EmailPreferences
    /// `nil` until the user first sets a window.
    public var quietHours: QuietHours?
    public var createdAt: Date
    public var updatedAt: Date
}

/// What `PUT /users/{id}` may set.
public struct UserProfile: Sendable, Equatable {
    public var email: String
    public var name: String

    /// Checks the fields the way the schema does, so the client learns which field is wrong.
    /// - Throws: ``DomainError`` (`.invalid`) naming the field.
    public init(email: String, name: String) throws(DomainError) {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.codePointCount <= 254, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            !email.contains(where: \.isWhitespace)
        else { throw .invalid("must be an email address", field: "email") }
        guard (1...256).contains(name.codePointCount) else {
            throw .invalid("must be 1 to 256 characters", field: "name")
        }
        self.email = email
        self.name = name
    }
}
