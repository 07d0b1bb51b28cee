/// One rule deciding whether an email may raise a banner (VaultMail NOTIF-07).
///
/// Filters are synchronous and pure: everything they read arrives in the ``FilterContext`` (a settings
/// snapshot and the current minute), so they can be tested alone and run in microseconds.
public protocol NotificationFilter: Sendable {
    /// The filter's name as reported when it rejects an email.
    var name: FilterName { get }

    /// `true` lets the email through this filter; `false` suppresses it.
    func shouldNotify(for email: Email, in context: FilterContext) -> Bool
}
