import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Testing

/// A device's service tokens through HTTP: recorded and replaced by their owner, listed by kind and never by value,
/// refused with the field named, and removed.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct ServiceTokenAPITests {
    @Test func tokensAreRecordedReplacedListedAndRemovedByTheirOwnerOnly() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            let device = try #require(registered.json?["id"]?.stringValue)
            let path = "/api/v1/devices/\(device)/push-tokens"
            let voip = DeviceAPITests.hexToken()
            let recorded = try await api.call(
                .put, "\(path)/voip", headers: try harness.user("alice"), json: #"{"token":"\#(voip)"}"#)
            #expect(recorded.status == .created && !recorded.text.contains(voip), "\(recorded.text)")
            #expect(recorded.json?["kind"]?.stringValue == "voip")
            let replaced = try await api.call(
                .put, "\(path)/voip", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())"}"#)
            #expect(replaced.status == .ok)
            let widgets = try await api.call(
                .put, "\(path)/widgets", headers: harness.admin(actingFor: "alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())"}"#)
            #expect(widgets.status == .created, "an admin key acting for the user: \(widgets.text)")

            let listed = try await api.call(.get, "/api/v1/devices", headers: try harness.user("alice"))
            #expect(Self.kinds(listed) == ["voip", "widgets"])
            #expect(!listed.text.contains(voip))

            let before = try await harness.snapshot()
            let refusals: [(HTTPRequest.Method, String, HTTPFields, String?, HTTPResponse.Status, String)] = [
                (
                    .put, "\(path)/voip", try harness.user("bob"), #"{"token":"\#(DeviceAPITests.hexToken())"}"#,
                    .notFound, "deviceId"
                ),
                (
                    .put, "\(path)/mdm", try harness.user("alice"), #"{"token":"\#(DeviceAPITests.hexToken())"}"#,
                    .unprocessableContent, "kind"
                ),
                (.put, "\(path)/voip", try harness.user("alice"), #"{"token":"xyz"}"#, .unprocessableContent, "token"),
                (
                    .put, "\(path)/voip", try harness.user("alice"), #"{"token":"\#(voip)","extra":1}"#,
                    .unprocessableContent, "extra"
                ),
                (.delete, "\(path)/voip", try harness.user("bob"), nil, .notFound, "deviceId"),
            ]
            for (method, target, headers, json, status, field) in refusals {
                let answer = try await api.call(method, target, headers: headers, json: json)
                #expect(answer.status == status && answer.field == field, "\(method) \(target): \(answer.text)")
            }
            #expect(try await harness.snapshot() == before)

            let removed = try await api.call(.delete, "\(path)/voip", headers: try harness.user("alice"))
            #expect(removed.status == .noContent)
            let after = try await api.call(.get, "/api/v1/devices", headers: try harness.user("alice"))
            #expect(Self.kinds(after) == ["widgets"])
        }
    }

    /// The first listed device's `pushTokenKinds`.
    static func kinds(_ answer: API.Answer) -> [String]? {
        guard case .array(let devices)? = answer.json?["devices"],
            case .array(let kinds)? = devices.first?["pushTokenKinds"]
        else { return nil }
        return kinds.compactMap { $0.stringValue }
    }
}
