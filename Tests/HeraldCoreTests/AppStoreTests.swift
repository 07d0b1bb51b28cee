import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// Apps as data: the single-app settings become the default app that today's devices join, and a registration
/// joins the app it names, else the app of its topic, else the default.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct AppStoreTests {
    /// A database of today's schema with devices registered before apps existed: defining the default app from
    /// the settings gives every one of them to it, and running it again changes nothing.
    @Test func theSettingsBecomeTheDefaultAppThatExistingDevicesJoin() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let alice = try await db.user("alice")
        _ = try await db.device(alice)
        _ = try await db.device(alice)
        #expect(try await db.devices.devices(of: alice, in: .everyApp).allSatisfy { $0.appID == nil })

        let apps = AppStore(client: db.client)
        let app = try await apps.defineDefault(bundleID: "com.example.one", teamID: "TEAM000001", environment: .sandbox)
        #expect(app.isDefault && app.externalID.rawValue == "default" && app.bundleID == "com.example.one")
        #expect(try await db.devices.devices(of: alice, in: .everyApp).allSatisfy { $0.appID == app.externalID })
        let again = try await apps.defineDefault(
            bundleID: "com.example.one", teamID: "TEAM000001", environment: .sandbox)
        #expect(again.id == app.id)
        #expect(try await apps.list().count == 1)

        // A changed APNS_BUNDLE_ID moves the default app to it rather than making a second default.
        let moved = try await apps.defineDefault(
            bundleID: "com.example.renamed", teamID: "TEAM000001", environment: .production)
        #expect(
            moved.id == app.id && moved.bundleID == "com.example.renamed" && moved.defaultEnvironment == .production)
        let deleteDefault = await #expect(throws: DomainError.self) { try await apps.delete(app.externalID) }
        #expect(deleteDefault?.kind == .conflict)
    }

    @Test func registrationsJoinTheNamedAppElseTheTopicsElseTheDefault() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let apps = AppStore(client: db.client)
        _ = try await apps.defineDefault(bundleID: "com.example.one", teamID: "TEAM000001", environment: .sandbox)
        let two = try AppDefinition(
            name: "Two", bundleID: "com.example.two", teamID: "TEAM000002", defaultEnvironment: .production)
        let (second, created) = try await apps.put(ExternalID("two")!, two)
        #expect(created)
        let taken = await #expect(throws: DomainError.self) {
            try await apps.put(ExternalID("three")!, two)
        }
        #expect(taken?.kind == .conflict && taken?.field == "bundleId")

        let alice = try await db.user("alice")
        func register(app: String? = nil, topic: String? = nil) async throws -> ExternalID? {
            let token = DeviceToken(hex: SecureToken.hex())!
            return try await db.devices.register(
                .init(
                    token: token, platform: .iOS, environment: .sandbox, topic: topic, app: app.flatMap(ExternalID.init)
                ),
                for: alice
            ).device.appID
        }
        #expect(try await register(app: "two") == second.externalID)
        #expect(try await register(topic: "com.example.two") == second.externalID)
        #expect(try await register(topic: "com.example.elsewhere")?.rawValue == "default")
        #expect(try await register()?.rawValue == "default")

        #expect(try await apps.delete(second.externalID))
        #expect(try await db.devices.devices(of: alice, in: .everyApp).count == 2, "an app's devices go with it")
    }

    @Test func signingKeysAreDataWithoutTheirMaterial() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let keys = SigningKeyStore(client: db.client)
        let topical = try SigningKeyDefinition(
            teamID: "TEAM000001", keyID: "KEY0000002", environments: .production,
            topics: ["com.example.two", "com.example.one", "com.example.two"])
        let (key, added) = try await keys.add(topical, keyPath: "/etc/herald/AuthKey_KEY0000002.p8")
        #expect(added && key.topics == ["com.example.one", "com.example.two"] && key.storage == .file)
        #expect(key.signs(topic: "com.example.one", environment: .production))
        #expect(!key.signs(topic: "com.example.one", environment: .sandbox))
        #expect(!key.signs(topic: "com.example.three", environment: .production))

        _ = try await keys.defineDefault(teamID: "TEAM000001", keyID: "KEY0000001", keyPath: "/etc/herald/a.p8")
        #expect(try await keys.list().map(\.keyID) == ["KEY0000001", "KEY0000002"])
        let retired = try await keys.retire(keyID: "KEY0000001")
        #expect(retired.map(\.state) == [.retiring])
        #expect(try await keys.retire(keyID: "KEY0000001").isEmpty, "a key is retired once")
        _ = try await keys.defineDefault(teamID: "TEAM000001", keyID: "KEY0000001", keyPath: "/etc/herald/a.p8")
        #expect(try await keys.list().first?.state == .retiring, "a start-up does not bring a retired key back")
        #expect(try await keys.activeKeys().map(\.key.keyID) == ["KEY0000002"])

        let bad = #expect(throws: DomainError.self) {
            try SigningKeyDefinition(teamID: "TEAM000001", keyID: "KEY", environments: .both, topics: ["bad topic"])
        }
        #expect(bad?.field == "topics[0]")
    }

    /// A key kept in the database is sealed under the master key, bound to its own row: it opens with that key
    /// there and nowhere else, and no listing carries it.
    @Test func sealedKeysOpenOnlyWithTheMasterKeyInTheirOwnRow() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let keys = SigningKeyStore(client: db.client)
        let master = try AES256GCM(key: SecureRandom.bytes(count: 32))
        let pem = TestSigningKey.generate().privateKeyPEM
        let definition = try SigningKeyDefinition(
            teamID: "TEAM000001", keyID: "KEY0000009", environments: .both, topics: [])
        let (key, added) = try await keys.add(definition, pem: pem, masterKey: master)
        #expect(added && key.storage == .sealed)
        let stored = try await db.client.query("SELECT sealed_key FROM apns_signing_keys").scalar(Data.self)
        #expect(!String(decoding: stored, as: UTF8.self).contains("PRIVATE KEY"), "the PEM is not stored in clear")

        let (listed, material) = try #require(try await keys.activeKeys().first)
        #expect(try material.pem(of: listed, masterKey: master) == pem)
        let other = try AES256GCM(key: SecureRandom.bytes(count: 32))
        #expect(throws: AES256GCMError.self) { try material.pem(of: listed, masterKey: other) }
        #expect(throws: DomainError.self) { try material.pem(of: listed, masterKey: nil) }
        var elsewhere = listed
        elsewhere.keyID = "KEY0000010"
        #expect(throws: AES256GCMError.self) { try material.pem(of: elsewhere, masterKey: master) }
    }

    /// A send that names an app reaches only that app's devices; one that names none reaches every app's.
    @Test func aSendNamingAnAppReachesOnlyItsDevices() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let apps = AppStore(client: db.client)
        _ = try await apps.defineDefault(bundleID: "com.example.one", teamID: "TEAM000001", environment: .sandbox)
        _ = try await apps.put(
            ExternalID("two")!,
            try AppDefinition(
                name: "Two", bundleID: "com.example.two", teamID: "TEAM000001", defaultEnvironment: .sandbox))
        let alice = try await db.user("alice")
        let one = try await db.device(alice)
        let two = try await db.devices.register(
            .init(
                token: DeviceToken(hex: SecureToken.hex())!, platform: .iOS, environment: .sandbox,
                app: ExternalID("two")),
            for: alice
        ).device.id
        func send(to app: String?) async throws -> Set<UUID> {
            var direct = DirectNotification()
            direct.userIDs = [alice]
            direct.alert = Alert(body: "hello")
            var draft = NotificationDraft(direct: direct)
            draft.targets.app = app.flatMap(ExternalID.init)
            let accepted = try await db.notifications.accept(draft, apiKeyID: nil)
            try await db.expander.expandDue()
            return Set(try await db.deliveries(accepted.id).keys)
        }
        #expect(try await send(to: "two") == [two])
        #expect(try await send(to: "default") == [one])
        #expect(try await send(to: nil) == [one, two])
    }
}

/// Retirement: a retired key's fleet token is never renewed, it reads as retiring for the hour its last token may
/// still be in use and as retired after it, and adding it again brings it back.
@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct SigningKeyRetirementTests {
    @Test func aRetiredKeySignsNoNewTokenAndSettlesAfterItsGrace() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let keys = SigningKeyStore(client: db.client)
        let tokens = ProviderTokenStore(client: db.client)
        let definition = try SigningKeyDefinition(
            teamID: "TEAM000001", keyID: "KEY0000001", environments: .both, topics: [])
        _ = try await keys.add(definition, keyPath: "/etc/herald/a.p8")
        let token = SharedProviderToken(jwt: "a.b.c", issuedAt: Date())
        #expect(try await tokens.insert(token, generation: 1, teamID: "TEAM000001", keyID: "KEY0000001"))
        #expect(try await tokens.insert(token, generation: 1, teamID: "TEAM000009", keyID: "UNRECORDED"))

        _ = try await keys.retire(keyID: "KEY0000001")
        #expect(
            try await !tokens.insert(token, generation: 2, teamID: "TEAM000001", keyID: "KEY0000001"),
            "no next generation for a retiring key")
        #expect(try await tokens.newest(teamID: "TEAM000001", keyID: "KEY0000001")?.generation == 1)
        #expect(try await keys.settleRetirements().isEmpty, "still within the grace")

        try await db.client.execute(
            "UPDATE apns_signing_keys SET retired_at = now() - interval '61 minutes' WHERE key_id = 'KEY0000001'")
        #expect(try await keys.list().map(\.state) == [.retired], "a listing reads the grace as over at once")
        #expect(try await keys.settleRetirements().map(\.keyID) == ["KEY0000001"])
        #expect(try await keys.settleRetirements().isEmpty)
        let stored = try await db.client.query(
            "SELECT state FROM apns_signing_keys WHERE key_id = 'KEY0000001'"
        ).scalar(String.self)
        #expect(stored == "retired")

        let (again, added) = try await keys.add(definition, keyPath: "/etc/herald/a.p8")
        #expect(!added && again.state == .active && again.retiredAt == nil)
        #expect(try await tokens.insert(token, generation: 2, teamID: "TEAM000001", keyID: "KEY0000001"))
    }
}
