import APNsCore
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(2))) struct DirectoryTests {
    @Test func reRegistrationMovesTheTokenAndReactivatesIt() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let alice = try await db.user("alice")
        let bob = try await db.user("bob")
        let token = DeviceToken(hex: SecureToken.hex().uppercased())!
        let first = try await db.devices.register(
            .init(token: token, platform: .iOS, environment: .sandbox), for: alice)
        #expect(first.created)
        #expect(try await db.devices.remove(first.device.id, of: alice, in: .everyApp))
        #expect(try await db.devices.devices(of: alice, in: .everyApp).first?.deactivationReason == .removedByUser)
        let second = try await db.devices.register(
            .init(token: token, platform: .macOS, environment: .production), for: bob)
        #expect(!second.created)
        #expect(second.device.id == first.device.id)
        #expect(second.device.isActive)
        #expect(try await db.devices.devices(of: alice, in: .everyApp).isEmpty)
        #expect(try await db.devices.devices(of: bob, in: .everyApp).map(\.platform) == [.macOS])
    }

    @Test func aUserCannotRemoveAnotherUsersDevice() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let alice = try await db.user("alice")
        let bob = try await db.user("bob")
        let device = try await db.device(alice)
        #expect(try await db.devices.remove(device, of: bob, in: .everyApp) == false)
        #expect(try await db.devices.devices(of: alice, in: .everyApp).first?.isActive == true)
    }

    @Test func ownerCannotBeDeletedAndEmailsAreUniqueIgnoringCase() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let owner = try await db.user("owner", email: "Owner@Example.com")
        _ = try await db.directory.putProject(ExternalID("p")!, name: "P", owner: owner)
        await #expect(
            throws: DomainError.conflict(
                "the user owns a project: give it a new owner or delete it first", field: "userId")
        ) {
            try await db.directory.deleteUser(owner)
        }
        let error = await #expect(throws: DomainError.self) { try await db.user("twin", email: "owner@EXAMPLE.com") }
        #expect(error?.kind == .conflict)
        #expect(try await db.directory.deleteProject(ExternalID("p")!))
        #expect(try await db.directory.deleteUser(owner))
    }

    @Test func removingAMemberDeletesTheirOverrides() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let owner = try await db.user("owner")
        let alice = try await db.user("alice")
        let project = ExternalID("p")!
        _ = try await db.directory.putProject(project, name: "P", owner: owner)
        #expect(try await db.directory.putMember(project: project, user: alice))
        #expect(try await db.directory.putMember(project: project, user: alice) == false)
        var changes = ProjectOverrideChanges()
        changes.muted = true
        _ = try await db.preferences.updateProjectPreferences(alice, project: project, changes)
        #expect(try await db.directory.deleteMember(project: project, user: alice))
        #expect(try await db.client.query("SELECT count(*) FROM project_member_preferences").scalar(Int.self) == 0)
        await #expect(throws: DomainError.self) { try await db.preferences.projectPreferences(alice, project: project) }
    }

    @Test func apiKeysStoreOnlyAHash() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let keys = APIKeyStore(client: db.client)
        let created = try await keys.create(name: "backend", scope: .send)
        #expect(created.secret.hasPrefix("hk_"))
        #expect(try await keys.authenticate(created.secret)?.scope == .send)
        let stored = try await db.client.query("SELECT key_hash FROM api_keys").scalar(String.self)
        #expect(stored != created.secret && !stored.contains(created.secret))
        #expect(try await keys.revoke(created.key.prefix)?.revokedAt != nil)
        #expect(try await keys.authenticate(created.secret) == nil)
    }
}

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct RegistrationBatcherTests {
    /// One batch at a time, and batches beside each other once five registrations wait.
    @Test(arguments: [(1, 16), (3, 5)])
    func concurrentRegistrationsAreBatchedWithTheSameOutcomes(batches: Int, parallelAfter: Int) async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let users = [try await db.user("a"), try await db.user("b")]
        let batcher = RegistrationBatcher(
            store: db.devices, maximumBatches: batches, maximumBatchSize: 50, minimumParallelBatchSize: parallelAfter)
        let shared = DeviceToken(hex: SecureToken.hex())!
        // 200 distinct tokens, one token registered by both users, and an unknown user.
        let outcomes = await withTaskGroup(of: Result<Bool, any Error>.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let token = DeviceToken(hex: SecureToken.hex())!
                    let registration = DeviceRegistration(token: token, platform: .iOS, environment: .sandbox)
                    return await Result(catching: {
                        try await batcher.register(registration, for: users[index % 2]).created
                    })
                }
            }
            for user in users {
                group.addTask {
                    let registration = DeviceRegistration(token: shared, platform: .macOS, environment: .production)
                    return await Result(catching: { try await batcher.register(registration, for: user).created })
                }
            }
            group.addTask {
                let registration = DeviceRegistration(
                    token: DeviceToken(hex: SecureToken.hex())!, platform: .iOS, environment: .sandbox)
                return await Result(catching: {
                    try await batcher.register(registration, for: ExternalID("ghost")!).created
                })
            }
            return await group.reduce(into: [Result<Bool, any Error>]()) { $0.append($1) }
        }
        let created = outcomes.compactMap { try? $0.get() }
        #expect(created.count == 202)
        #expect(created.filter { $0 }.count == 201)  // the shared token is new once, then moves
        #expect(
            outcomes.filter {
                if case .failure(let error) = $0 { (error as? DomainError)?.kind == .notFound } else { false }
            }.count == 1)
        #expect(try await db.client.query("SELECT count(*) FROM device_tokens").scalar(Int.self) == 201)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
