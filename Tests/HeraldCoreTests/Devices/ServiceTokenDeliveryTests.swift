import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// Pushes of a service's type go to the device's token of that kind, through a mock that refuses a token used on
/// another service's topic (`DeviceTokenNotForTopic`), as Apple does.
extension Networked {
    @Suite struct ServiceTokenDeliveryTests {
        /// The mock's bindings: a device's own token starts with `d0`, each kind's token with its own prefix.
        static let prefixes: [String: String] = [
            "device": "d0", "voip": "a1", "complication": "a2", "fileprovider": "a3", "location": "a4",
            "pushtotalk": "a5", "widgets": "a6", "controls": "a7",
        ]

        static func token(_ service: String) -> String {
            let random = (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
            return prefixes[service]! + random.prefix(62)
        }

        struct Fixture {
            let harness: EngineHarness
            let user: ExternalID
            let device: UUID
            var expander: NotificationExpander { NotificationExpander(client: harness.client) }
        }

        /// A user with one device, and that device's tokens of `kinds`.
        static func fixture(kinds: [ServiceTokenKind]) async throws -> Fixture {
            let harness = try await EngineHarness.start(
                tokenKinds: Dictionary(uniqueKeysWithValues: prefixes.map { ($0.value, $0.key) }))
            let name = "svc-\(UUID().uuidString.prefix(8))"
            let userID = try await harness.insertUser(name)
            let device = try await harness.insertDevice(user: userID, token: token("device"))
            let user = ExternalID(name)!
            for kind in kinds {
                let created = try await ServiceTokenStore(client: harness.client).register(
                    DeviceToken(hex: token(kind.rawValue))!, kind: kind, device: device, of: user, in: .everyApp)
                #expect(created == true)
            }
            return Fixture(harness: harness, user: user, device: device)
        }

        static func push(_ pushType: PushType, to user: ExternalID) throws -> NotificationDraft {
            var direct = DirectNotification()
            direct.userIDs = [user]
            direct.pushType = pushType
            switch pushType {
            case .widgets, .controls: break
            case .background: direct.contentAvailable = true
            default: direct.alert = Alert(title: "Hi", body: "\(pushType)")
            }
            try direct.validate()
            return NotificationDraft(direct: direct)
        }

        /// Runs an engine until no delivery is open.
        static func deliverAll(_ harness: EngineHarness) async throws {
            let done = try await harness.run(harness.makeEngine()) {
                try await harness.client.query("SELECT count(*) FROM deliveries").scalar(Int.self) == 0
            }
            #expect(done)
        }

        @Test func everyPushTypeArrivesOnItsOwnToken() async throws {
            let fixture = try await Self.fixture(kinds: ServiceTokenKind.allCases)
            let harness = fixture.harness
            let types: [PushType] = [.alert, .background] + ServiceTokenKind.allCases.map(\.pushType)
            for type in types {
                _ = try await NotificationStore(client: harness.client).accept(
                    try Self.push(type, to: fixture.user), apiKeyID: nil)
            }
            _ = try await fixture.expander.expandDue()
            try await Self.deliverAll(harness)
            let requests = harness.sandbox.recordedRequests
            #expect(requests.count == types.count)
            for request in requests {
                let type = try #require(request.headers.first { $0.name == "apns-push-type" }?.value)
                let service = type == "alert" || type == "background" ? "device" : type
                #expect(request.deviceToken?.hasPrefix(Self.prefixes[service]!) == true, "\(type)")
                if case .reject = request.verdict { Issue.record("\(type) was refused: \(request.verdict)") }
            }
            let statuses = try await harness.client.query(
                "SELECT status FROM push_notification_logs WHERE status <> 'sending'"
            ).decode(String.self)
            #expect(statuses.count == types.count && statuses.allSatisfy { $0 == "sent" })
            // Every answered push keeps Apple's apns-unique-id, in the log and in the notification's deliveries.
            let logs = DeliveryLogStore(client: harness.client)
            let entries = try await logs.list(DeliveryLogFilter(), limit: 100).filter { $0.status == "sent" }
            #expect(entries.count == types.count)
            #expect(entries.allSatisfy { $0.apnsUniqueID.flatMap(UUID.init(uuidString:)) != nil })
            let notification = try #require(entries.first?.notificationID)
            let report = try #require(try await logs.deliveries(of: notification, in: .everyApp))
            #expect(report.deliveries.count == 1 && report.deliveries[0].apnsUniqueID == entries.first?.apnsUniqueID)
            try await harness.stop()
        }

        @Test func aRecipientWithoutTheKindsTokenIsSuppressedByName() async throws {
            let fixture = try await Self.fixture(kinds: [.widgets])
            let harness = fixture.harness
            let accepted = try await NotificationStore(client: harness.client).accept(
                try Self.push(.voip, to: fixture.user), apiKeyID: nil)
            _ = try await fixture.expander.expandDue()
            let reasons = try await harness.client.query(
                "SELECT reason FROM notification_suppressions WHERE notification_id = \(accepted.id)"
            ).decode(String.self)
            #expect(reasons == [ServiceTokenKind.voip.missingTokenReason.rawValue])
            for kind in ServiceTokenKind.allCases {
                #expect(kind.missingTokenReason.rawValue == "no_\(kind.rawValue)_token", "the SQL's name for \(kind)")
                #expect(kind.pushType.headerValue == kind.rawValue)
            }
            #expect(try await harness.client.query("SELECT count(*) FROM deliveries").scalar(Int.self) == 0)
            try await harness.stop()
        }

        /// A recipient reached on one device is listed as skipped on the other, which has no token of the kind.
        @Test func aTargetDeviceWithoutTheKindsTokenIsSkippedAndListed() async throws {
            let fixture = try await Self.fixture(kinds: [.voip])
            let harness = fixture.harness
            let userID = try await harness.client.query(
                "SELECT user_id FROM device_tokens WHERE id = \(fixture.device)"
            ).scalar(UUID.self)
            let tablet = try await harness.insertDevice(user: userID, token: Self.token("device"))
            let accepted = try await NotificationStore(client: harness.client).accept(
                try Self.push(.voip, to: fixture.user), apiKeyID: nil)
            _ = try await fixture.expander.expandDue()
            let report = try #require(
                try await DeliveryLogStore(client: harness.client).deliveries(of: accepted.id, in: .everyApp))
            #expect(report.deliveries.count == 1)
            #expect(report.suppressions.map(\.deviceID) == [tablet])
            #expect(report.suppressions.map(\.reason) == ["no_voip_token"])
            try await harness.stop()
        }

        @Test func aDeadKindTokenIsDeactivatedAloneNeverTheDevice() async throws {
            let fixture = try await Self.fixture(kinds: [.voip, .widgets])
            let harness = fixture.harness
            // The app reported its widgets token as its VoIP token: Apple refuses it on the VoIP topic.
            let misreported = Self.token("widgets")
            try await harness.client.execute(
                """
                UPDATE device_tokens SET token = \(misreported)
                WHERE parent_device_id = \(fixture.device) AND kind = 'voip'
                """)
            _ = try await NotificationStore(client: harness.client).accept(
                try Self.push(.voip, to: fixture.user), apiKeyID: nil)
            _ = try await fixture.expander.expandDue()
            try await Self.deliverAll(harness)
            let rows = try await harness.client.query(
                """
                SELECT kind, is_active, deactivation_reason FROM device_tokens
                WHERE id = \(fixture.device) OR parent_device_id = \(fixture.device) ORDER BY kind
                """
            ).decode((String, Bool, String?).self)
            #expect(rows.map(\.0) == ["device", "voip", "widgets"])
            #expect(rows.map(\.1) == [true, false, true])
            #expect(rows[1].2 == "not_for_topic")
            let listed = try await DeviceStore(client: harness.client).devices(of: fixture.user, in: .everyApp)
            #expect(listed.first?.pushTokenKinds == [.widgets])
            try await harness.stop()
        }

        @Test func kindTokensAreListedReplacedAndRemovedWithoutTheirTokens() async throws {
            let fixture = try await Self.fixture(kinds: [.voip])
            let store = ServiceTokenStore(client: fixture.harness.client)
            let replaced = try await store.register(
                DeviceToken(hex: Self.token("voip"))!, kind: .voip, device: fixture.device, of: fixture.user,
                in: .everyApp)
            #expect(replaced == false, "the device's VoIP token was replaced, not added")
            let stranger = try await store.register(
                DeviceToken(hex: Self.token("voip"))!, kind: .voip, device: fixture.device, of: ExternalID("nobody")!,
                in: .everyApp)
            #expect(stranger == nil, "another user's device is absent")
            let devices = DeviceStore(client: fixture.harness.client)
            #expect(try await devices.devices(of: fixture.user, in: .everyApp).first?.pushTokenKinds == [.voip])
            #expect(try await store.remove(kind: .voip, device: fixture.device, of: fixture.user, in: .everyApp))
            #expect(try await devices.devices(of: fixture.user, in: .everyApp).first?.pushTokenKinds == [])
            #expect(try await !store.remove(kind: .voip, device: UUID(), of: fixture.user, in: .everyApp))
            try await fixture.harness.stop()
        }
    }
}
