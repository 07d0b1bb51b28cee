import Postgres

/// The channels Herald's processes wake each other on.
public enum HeraldChannel {
    /// A notification was accepted; its payload is the notification id.
    public static let notifications = "herald_notifications"
    /// Deliveries were created (their workers wake); its payload is the notification id. Send it after inserting
    /// deliveries by other means.
    public static let deliveries = "herald_deliveries"
    /// Operator commands to running delivery engines (``DeliveryEngine/resumeMessage``).
    public static let deliveryControl = "herald_delivery_control"
    /// Apps or signing keys changed: delivering processes read them again at once.
    public static let signingKeys = "herald_signing_keys"
}

extension PostgresError {
    /// Whether the server refused the statement with `state`.
    func isServerError(_ state: SQLState) -> Bool { kind == .server && sqlState == state }
}
