import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Postgres

/// A fresh migrated database for one test, with helpers to build audiences quickly.
struct CoreDatabase {
    let client: PostgresClient

    static func make() async throws -> CoreDatabase {
        let url = try await TestDatabases.shared.heraldDatabase()
        return CoreDatabase(
            client: PostgresClient(configuration: try PostgresConfiguration(url), logger: Logger(label: "test")))
    }

    var directory: Directory { Directory(client: client) }
    var devices: DeviceStore { DeviceStore(client: client) }
    var preferences: PreferenceStore { PreferenceStore(client: client) }
    var notifications: NotificationStore { NotificationStore(client: client) }
    var expander: NotificationExpander { NotificationExpander(client: client) }

    @discardableResult
    func user(_ id: String, email: String? = nil) async throws -> ExternalID {
        let external = ExternalID(id)!
        _ = try await directory.putUser(
            external, profile: try UserProfile(email: email ?? "\(id)@example.com", name: id))
        return external
    }

    /// A user with `devices` new random devices.
    func user(_ id: String, devices: Int) async throws -> ExternalID {
        let user = try await self.user(id)
        for _ in 0..<devices { try await device(user) }
        return user
    }

    /// A direct notification to `user`'s devices, accepted and expanded; its id.
    func sendDirect(to user: ExternalID) async throws -> UUID {
        var direct = DirectNotification()
        direct.userIDs = [user]
        direct.alert = Alert(title: "Hi", body: "Now")
        try direct.validate()
        let accepted = try await notifications.accept(NotificationDraft(direct: direct), apiKeyID: nil)
        try await expander.expandDue()
        return accepted.id
    }

    /// Registers a new random device for `user` and returns its id.
    @discardableResult
    func device(_ user: ExternalID) async throws -> UUID {
        let token = DeviceToken(hex: SecureToken.hex())!
        return try await devices.register(
            DeviceRegistration(token: token, platform: .iOS, environment: .sandbox), for: user
        ).device.id
    }

    /// Accepts `event`, expands it and returns the notification id.
    func send(_ event: Event) async throws -> UUID {
        let accepted = try await notifications.accept(NotificationDraft(event: event), apiKeyID: nil)
        try await expander.expandDue()
        return accepted.id
    }

    /// Device ids with a delivery for the notification, and the variant of each.
    func deliveries(_ id: UUID) async throws -> [UUID: String] {
        let rows = try await client.query(
            "SELECT device_token_id, variant FROM deliveries WHERE notification_id = \(id)"
        ).decode((UUID, String).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
    }

    /// The log rows of the notification as (device, status, attempt, type).
    func logged(_ id: UUID) async throws -> [(UUID?, String, Int, String)] {
        try await client.query(
            """
            SELECT device_token_id, status, attempt, notification_type FROM push_notification_logs
            WHERE notification_id = \(id)
            """
        ).decode((UUID?, String, Int, String).self)
    }

    /// Suppression reasons of the notification by the user's external id.
    func suppressions(_ id: UUID) async throws -> [String: String] {
        let rows = try await client.query(
            """
            SELECT u.external_id, s.reason FROM notification_suppressions s JOIN users u ON u.id = s.user_id
            WHERE s.notification_id = \(id)
            """
        ).decode((String, String).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
    }
}

enum SecureToken {
    /// 32 random bytes as hex: a plausible APNs token.
    static func hex() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
