import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldTesting
import Testing

extension Networked {
    @Suite
    struct ResponseMappingTests {
        /// Every documented reason, scripted in the mock by device-token prefix, comes back as its typed case.
        @Test func everyDocumentedReasonMapsToItsTypedResult() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            for (index, reason) in APNsReason.known.enumerated() {
                let timestamp: Int64? = reason.status == 410 ? 1_700_000_000_123 : nil
                harness.mock.script(
                    deviceTokenPrefix: String(format: "%04x", index + 1),
                    .reject(status: reason.status ?? 500, reason: reason.name, timestamp: timestamp))
            }
            harness.mock.script(deviceTokenPrefix: "ffff", .reject(status: 400, reason: "SomethingNew", timestamp: nil))
            try await harness.withPool(harness.configuration()) { pool in
                for (index, reason) in APNsReason.known.enumerated() {
                    let id = APNsID()
                    let token = MockHarness.deviceToken(prefix: String(format: "%04x", index + 1))
                    let result = try await pool.send(MockHarness.alert(token, id: id))
                    let expectedTimestamp = reason.status == 410 ? Date(timeIntervalSince1970: 1_700_000_000.123) : nil
                    #expect(
                        result
                            == .rejected(
                                PushRejection(
                                    status: reason.status!, reason: reason, apnsID: id, timestamp: expectedTimestamp)))
                }
                let unknown = try await pool.send(MockHarness.alert(MockHarness.deviceToken(prefix: "ffff")))
                guard case .rejected(let rejection) = unknown else {
                    Issue.record("expected a rejection, got \(unknown)")
                    return
                }
                #expect(rejection.reason == .unknown("SomethingNew"))
            }
        }

        /// Rules the mock enforces itself, as Apple does, without scripting.
        @Test func mockEnforcesApplesRulesAndClientMapsThem() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            try await harness.withPool(harness.configuration()) { pool in
                // Well formed, so Herald sends it, but not one of the 32-byte tokens Apple issues today.
                let shortToken = try #require(DeviceToken(hex: String(repeating: "ab", count: 16)))
                let bad = try await pool.send(MockHarness.alert(shortToken))
                #expect(bad.rejectionReason == .badDeviceToken)
                #expect(bad.rejectionReason?.consequence == .tryOtherEnvironment)

                let otherApp = try PushRequest(
                    deviceToken: MockHarness.deviceToken(), bundleID: "com.example.other", pushType: .alert,
                    payloadJSON: Data(#"{"aps":{}}"#.utf8))
                let disallowed = try await pool.send(otherApp)
                #expect(disallowed.rejectionReason == .topicDisallowed)
                #expect(disallowed.rejectionReason?.consequence == .fixConfiguration)
            }
        }

        /// Every documented reason, by Apple's name, and what Herald does about it.
        static let consequences: [String: RejectionConsequence] = [
            "BadCollapseId": .drop, "BadDeviceToken": .tryOtherEnvironment, "BadExpirationDate": .drop,
            "BadMessageId": .drop, "BadPriority": .drop, "BadTopic": .fixConfiguration,
            "DeviceTokenNotForTopic": .tokenNotForTopic, "DuplicateHeaders": .drop, "IdleTimeout": .retryLater,
            "InvalidPushType": .drop, "MissingDeviceToken": .drop, "MissingTopic": .drop, "PayloadEmpty": .drop,
            "TopicDisallowed": .fixConfiguration, "MissingChannelId": .drop, "BadChannelId": .drop,
            "ChannelNotRegistered": .drop, "CannotCreateChannelConfig": .drop, "FeatureNotEnabled": .fixConfiguration,
            "BadRequestParams": .drop, "BadRequestPayload": .drop, "MissingPushType": .drop,
            "BadCertificate": .refuseCredentials, "BadCertificateEnvironment": .refuseCredentials,
            "ExpiredProviderToken": .retryLater, "Forbidden": .refuseCredentials, "InvalidProviderToken": .refuseKey,
            "MissingProviderToken": .refuseCredentials, "UnrelatedKeyIdInToken": .refuseKey,
            "BadEnvironmentKeyIdInToken": .refuseKey, "BadPath": .drop, "MethodNotAllowed": .drop,
            "ExpiredToken": .deactivateDevice, "Unregistered": .deactivateDevice, "PayloadTooLarge": .shortenPayload,
            "TooManyProviderTokenUpdates": .pauseSending, "TooManyRequests": .retryLater,
            "InternalServerError": .retryLater, "ServiceUnavailable": .pauseSending, "Shutdown": .pauseSending,
        ]

        @Test func everyDocumentedReasonHasItsConsequence() {
            #expect(APNsReason.known.count == 40)
            #expect(Set(APNsReason.known.map(\.name)) == Set(Self.consequences.keys))
            for (name, consequence) in Self.consequences {
                let reason = APNsReason(name: name)
                #expect(reason.name == name)
                #expect(reason.consequence == consequence, "\(name)")
            }
            #expect(Set(Self.consequences.values) == Set(RejectionConsequence.allCases), "every consequence is used")
        }

        @Test func aReasonAppleAddsLaterIsTypedAndRetried() {
            let reason = APNsReason(name: "SomethingNew")
            #expect(reason == .unknown("SomethingNew"))
            #expect(reason.name == "SomethingNew")
            #expect(reason.consequence == .retryLater)
        }
    }
}
