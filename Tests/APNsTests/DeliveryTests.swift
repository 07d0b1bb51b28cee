import APNs
import APNsMock
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DeliveryTests {
    @Test func acceptedPushCarriesEveryHeaderApplesRulesNeed() async throws {
        let harness = try await MockHarness.start()
        defer { Task { try await harness.stop() } }
        let id = APNsID()
        let request = try PushRequest(
            apnsID: id, deviceToken: MockHarness.deviceToken(), bundleID: MockHarness.bundleID, pushType: .voip,
            priority: .immediate, expiration: .at(Date(timeIntervalSince1970: 2_000_000_000)),
            collapseID: CollapseID("thread-1"), payload: Payload(aps: APS(alert: Alert(body: "Call"))))
        let result = try await harness.withPool(harness.configuration()) { try await $0.send(request) }

        #expect(result == .accepted(PushReceipt(apnsID: id, uniqueID: try #require(result.uniqueID))))
        let recorded = try #require(harness.mock.recordedRequests.first)
        #expect(recorded.method == "POST")
        #expect(recorded.path == "/3/device/" + MockHarness.deviceToken().hex)
        #expect(recorded.header("apns-push-type") == "voip")
        #expect(recorded.header("apns-topic") == MockHarness.bundleID + ".voip")
        #expect(recorded.header("apns-priority") == "10")
        #expect(recorded.header("apns-expiration") == "2000000000")
        #expect(recorded.header("apns-collapse-id") == "thread-1")
        #expect(recorded.header("apns-id") == id.description)
        #expect(recorded.header("authorization")?.hasPrefix("bearer ") == true)
        #expect(String(decoding: recorded.body, as: UTF8.self) == #"{"aps":{"alert":{"body":"Call"}}}"#)
    }
}

extension PushResult {
    var uniqueID: String? {
        if case .accepted(let receipt) = self { receipt.uniqueID } else { nil }
    }
}
