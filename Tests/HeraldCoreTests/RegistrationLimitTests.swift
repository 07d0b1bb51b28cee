import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// A user keeps a bounded number of active devices per app, and a device a bounded number of Live Activity and
/// push-to-start tokens: one more deactivates the least recently registered, even when registrations race.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct RegistrationLimitTests {
    func registration() -> DeviceRegistration {
        DeviceRegistration(token: DeviceToken(hex: SecureToken.hex())!, platform: .iOS, environment: .sandbox)
    }

    /// The ids of `user`'s devices that are active, and those deactivated over the limit.
    func devices(of user: ExternalID, in db: CoreDatabase) async throws -> (active: Set<UUID>, overLimit: Set<UUID>) {
        let devices = try await db.devices.devices(of: user, in: .everyApp)
        return (
            Set(devices.filter(\.isActive).map(\.id)),
            Set(devices.filter { $0.deactivationReason == .overLimit }.map(\.id))
        )
    }

    @Test func sixtyRegistrationsLeaveTheLastFiftyActive() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let user = try await db.user("many")
        let other = try await db.user("other", devices: 2)
        var registered: [UUID] = []
        for _ in 0..<60 {
            registered.append(try await db.devices.register(registration(), for: user).device.id)
        }
        let (active, overLimit) = try await devices(of: user, in: db)
        #expect(active == Set(registered.suffix(50)))
        #expect(overLimit == Set(registered.prefix(10)))
        #expect(try await devices(of: other, in: db).active.count == 2, "another user keeps hers")
    }

    @Test func reRegisteringATokenMakesItTheMostRecent() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let user = try await db.user("few")
        let store = DeviceStore(client: db.client, limits: RegistrationLimits(devicesPerUser: 2))
        let first = registration()
        let firstID = try await store.register(first, for: user).device.id
        let secondID = try await store.register(registration(), for: user).device.id
        #expect(try await store.register(first, for: user).device.id == firstID)
        let thirdID = try await store.register(registration(), for: user).device.id
        let (active, overLimit) = try await devices(of: user, in: db)
        #expect(active == [firstID, thirdID])
        #expect(overLimit == [secondID])
    }

    @Test func concurrentRegistrationsCannotPassTheLimit() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let user = try await db.user("racer")
        let store = DeviceStore(client: db.client, limits: RegistrationLimits(devicesPerUser: 5))
        let batcher = RegistrationBatcher(
            store: store, maximumBatches: 3, maximumBatchSize: 4, minimumParallelBatchSize: 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        _ = try await store.register(registration(), for: user)
                    } else {
                        _ = try await batcher.register(registration(), for: user)
                    }
                }
            }
            try await group.waitForAll()
        }
        let (active, overLimit) = try await devices(of: user, in: db)
        #expect(active.count == 5)
        #expect(overLimit.count == 35)
    }

    @Test func aDeviceKeepsABoundedNumberOfActivityAndPushToStartTokens() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let user = try await db.user("fan")
        let device = try await db.device(user)
        let store = LiveActivityTokenStore(client: db.client, limits: RegistrationLimits(activityTokensPerDevice: 3))
        for index in 0..<5 {
            #expect(
                try await store.reportActivity(
                    ExternalID("game-\(index)")!, token: DeviceToken(hex: SecureToken.hex())!,
                    attributesType: ActivityAttributesType("ScoreAttributes")!, device: device, of: user, in: .everyApp)
                    == .started)
            #expect(
                try await store.registerPushToStart(
                    DeviceToken(hex: SecureToken.hex())!, attributesType: ActivityAttributesType("Kind\(index)")!,
                    device: device, of: user, in: .everyApp) == true)
        }
        let rows = try await db.client.query(
            """
            SELECT kind, coalesce(activity_id, attributes_type), is_active, coalesce(deactivation_reason, '')
            FROM device_tokens WHERE parent_device_id = \(device) ORDER BY 2
            """
        ).decode((String, String, Bool, String).self)
        let active = Set(rows.filter { $0.2 }.map(\.1))
        #expect(active == ["game-2", "game-3", "game-4", "Kind2", "Kind3", "Kind4"])
        #expect(rows.filter { !$0.2 }.allSatisfy { $0.3 == "over_limit" })
        #expect(rows.count == 10)
        #expect(try await devices(of: user, in: db).active == [device], "the device itself stays")
    }
}
