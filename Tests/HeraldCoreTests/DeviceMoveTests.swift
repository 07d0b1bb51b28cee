import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// A device token registered by another user (someone else signed in on the device) takes nothing of its earlier
/// user along: not their Live Activities, not the pushes still waiting for them.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct DeviceMoveTests {
    @Test func aMovedDeviceLeavesItsEarlierUsersActivitiesAndPushesBehind() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let ada = try await db.user("ada")
        let bob = try await db.user("bob")
        let token = DeviceToken(hex: SecureToken.hex())!
        let registration = DeviceRegistration(token: token, platform: .iOS, environment: .sandbox)
        let device = try await db.devices.register(registration, for: ada).device.id
        let activities = LiveActivityTokenStore(client: db.client)
        let report = try await activities.reportActivity(
            ExternalID("order-42")!, token: DeviceToken(hex: SecureToken.hex())!,
            attributesType: ActivityAttributesType("OrderAttributes")!, device: device, of: ada, in: .everyApp)
        #expect(report == .started)
        #expect(
            try await activities.registerPushToStart(
                DeviceToken(hex: SecureToken.hex())!, attributesType: ActivityAttributesType("OrderAttributes")!,
                device: device, of: ada, in: .everyApp) == true)
        let forAda = try await db.sendDirect(to: ada)
        #expect(try await db.deliveries(forAda).keys.contains(device))

        // The same user registering again keeps everything.
        _ = try await db.devices.register(registration, for: ada)
        #expect(try await activeChildren(of: device, in: db) == 2)
        #expect(try await db.deliveries(forAda).keys.contains(device))

        let moved = try await db.devices.register(registration, for: bob)
        #expect(moved.device.id == device && !moved.created)
        #expect(try await activeChildren(of: device, in: db) == 0)
        let reasons = try await db.client.query(
            "SELECT DISTINCT deactivation_reason FROM device_tokens WHERE parent_device_id = \(device)"
        ).decode(String.self)
        #expect(reasons == ["removed_by_user"])
        #expect(try await db.deliveries(forAda).isEmpty, "ada's push no longer waits for bob's device")
        #expect(try await db.logged(forAda).contains { $0.0 == device && $0.1 == "canceled" })
        #expect(try await activities.app(of: ExternalID("order-42")!, in: .everyApp).found == false)

        let forBob = try await db.sendDirect(to: bob)
        _ = try await db.devices.register(registration, for: bob)
        #expect(try await db.deliveries(forBob).keys.contains(device), "bob's own push stays")
    }

    /// A service token (VoIP, widgets, …) belongs to the app on the device: it moves with the device to the user who
    /// registered it now, and that user's VoIP pushes reach it; the earlier user's reach nothing there.
    @Test func aMovedDeviceTakesItsServiceTokensToTheNewUser() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let ada = try await db.user("ada")
        let bob = try await db.user("bob")
        let registration = DeviceRegistration(
            token: DeviceToken(hex: SecureToken.hex())!, platform: .iOS, environment: .sandbox)
        let device = try await db.devices.register(registration, for: ada).device.id
        let store = ServiceTokenStore(client: db.client)
        #expect(
            try await store.register(
                DeviceToken(hex: SecureToken.hex())!, kind: .voip, device: device, of: ada, in: .everyApp) == true)

        _ = try await db.devices.register(registration, for: bob)
        #expect(try await db.devices.devices(of: bob, in: .everyApp).first?.pushTokenKinds == [.voip])
        #expect(try await db.devices.devices(of: ada, in: .everyApp).isEmpty)
        var call = DirectNotification()
        call.userIDs = [bob, ada]
        call.pushType = .voip
        call.alert = Alert(body: "Ringing")
        try call.validate()
        let accepted = try await db.notifications.accept(NotificationDraft(direct: call), apiKeyID: nil)
        try await db.expander.expandDue()
        let voip = try await db.client.query(
            "SELECT id FROM device_tokens WHERE parent_device_id = \(device) AND kind = 'voip'"
        ).scalar(UUID.self)
        #expect(try await db.deliveries(accepted.id).keys.sorted() == [voip])
        let suppressed = try await db.client.query(
            """
            SELECT u.external_id, s.reason FROM notification_suppressions s JOIN users u ON u.id = s.user_id
            WHERE s.notification_id = \(accepted.id)
            """
        ).decode((String, String).self)
        #expect(suppressed.map(\.0) == ["ada"] && suppressed.map(\.1) == ["no_voip_token"])
    }

    func activeChildren(of device: UUID, in db: CoreDatabase) async throws -> Int {
        try await db.client.query(
            "SELECT count(*) FROM device_tokens WHERE parent_device_id = \(device) AND is_active"
        ).scalar(Int.self)
    }
}
