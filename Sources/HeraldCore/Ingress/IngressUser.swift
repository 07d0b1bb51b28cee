extension ExternalID {
    /// Ids starting with `herald:` are Herald's own: the API creates, reads, deletes and acts for no user of such an
    /// id (``Directory`` refuses them, and so does the API wherever a user id comes in: paths, `X-Herald-User`), and
    /// no user token names one.
    public var isReservedForHerald: Bool { rawValue.hasPrefix(Self.reservedPrefix) }

    static let reservedPrefix = "herald:"

    /// The refusal of a reserved id where a backend's id was expected.
    static func reservedForHerald(field: String) -> DomainError {
        .invalid("ids starting with \(reservedPrefix) are Herald's own", field: field)
    }
}

/// The user that holds the device rows of tokens only the APNs ingress has seen (``IngressStore``).
///
/// Every delivery belongs to a user and a device, and the engine records, retries and logs through them; a token no app
/// registered still needs a row for that. Its rows are inactive (`not_registered`), so no event or direct send reaches
/// them, and the user's id is reserved (``ExternalID/isReservedForHerald``), so the API never shows, changes or
/// deletes it. One user serves every app: each device row carries its app.
enum IngressUser {
    static let externalID = "herald:apns-ingress"
    static let email = "apns-ingress@herald.invalid"
    static let name = "Herald APNs ingress"
}
