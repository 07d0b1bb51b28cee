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
                #expect(bad.isDeviceTokenDead)
                #expect(!bad.isRetryable)

                let otherApp = try PushRequest(
                    deviceToken: MockHarness.deviceToken(), bundleID: "com.example.other", pushType: .alert,
                    payloadJSON: Data(#"{"aps":{}}"#.utf8))
                let disallowed = try await pool.send(otherApp)
                #expect(disallowed.rejectionReason == .topicDisallowed)
                #expect(disallowed.isCredentialProblem)
            }
        }

        @Test func consequencesFollowApplesAdvice() {
            #expect(APNsReason.unregistered.consequence == .deactivateDevice)
            #expect(APNsReason.badDeviceToken.consequence == .deactivateDevice)
            #expect(APNsReason.tooManyRequests.consequence == .retryLater)
            #expect(APNsReason.serviceUnavailable.consequence == .retryLater)
            #expect(APNsReason.invalidProviderToken.consequence == .fixConfiguration)
            #expect(APNsReason.payloadTooLarge.consequence == .drop)
            #expect(PushResult.failed(.timedOut).isRetryable)
            #expect(!PushResult.failed(.cancelled).isRetryable)
            for reason in APNsReason.known {
                #expect(APNsReason(name: reason.name) == reason)
            }
            #expect(APNsReason.channelNotRegistered.consequence == .drop)
            #expect(APNsReason.featureNotEnabled.consequence == .fixConfiguration)
            #expect(APNsReason.known.count == 40)
        }
    }
}

extension PushResult {
    var rejectionReason: APNsReason? {
        if case .rejected(let rejection) = self { rejection.reason } else { nil }
    }
}
