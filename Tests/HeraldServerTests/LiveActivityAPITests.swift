import Foundation
import HTTPTypes
import HeraldCore
import HeraldTesting
import Testing

/// The Live Activity routes refuse what Apple would, naming the field, and change nothing when they do.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct LiveActivityAPITests {
    @Test func badRequestsNameTheirFieldAndChangeNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            try await DeviceAPITests.setUp(api, users: ["alice", "bob"])
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            let device = try #require(registered.json?["id"]?.stringValue)
            let token = DeviceAPITests.hexToken()
            let recorded = try await api.call(
                .post, "/api/v1/devices/\(device)/push-to-start-tokens", headers: try harness.user("alice"),
                json: #"{"attributesType":"Score","token":"\#(token)"}"#)
            #expect(recorded.status == .created && !recorded.text.contains(token))
            let before = try await harness.snapshot()

            let start = #""userIds":["alice"],"attributesType":"Score","attributes":{},"contentState":{}"#
            let refusals: [(HTTPRequest.Method, String, HTTPFields, String, HTTPResponse.Status, String)] = [
                (
                    .post, "/api/v1/devices/\(device)/push-to-start-tokens", try harness.user("bob"),
                    #"{"attributesType":"Score","token":"\#(DeviceAPITests.hexToken())"}"#, .notFound, "deviceId"
                ),
                (
                    .post, "/api/v1/devices/\(device)/push-to-start-tokens", try harness.user("alice"),
                    #"{"attributesType":"9Lives","token":"\#(DeviceAPITests.hexToken())"}"#, .unprocessableContent,
                    "attributesType"
                ),
                (
                    .put, "/api/v1/activities/a-1", try harness.user("alice"),
                    #"{"deviceId":"\#(device)","attributesType":"Score","token":"\#(token)"}"#, .conflict, "token"
                ),
                (.post, "/api/v1/activities", harness.admin(), "{\(start)}", .unprocessableContent, "alert"),
                (
                    .post, "/api/v1/activities", harness.admin(),
                    #"{\#(start),"alert":{"body":"b"},"inputPushToken":true,"inputPushChannel":"YWJjZA=="}"#,
                    .unprocessableContent, "inputPushToken"
                ),
                (
                    .post, "/api/v1/activities", harness.admin(),
                    #"{\#(start),"alert":{"body":"b"},"inputPushChannel":"not base64!"}"#, .unprocessableContent,
                    "inputPushChannel"
                ),
                (
                    .post, "/api/v1/activities", harness.admin(), #"{\#(start),"alert":{"body":"b"},"priority":1}"#,
                    .unprocessableContent, "priority"
                ),
                (
                    .post, "/api/v1/activities", harness.bearer(harness.keys[.read]!),
                    #"{\#(start),"alert":{"body":"b"}}"#, .forbidden, ""
                ),
                (
                    .post, "/api/v1/activities/a-1/events", harness.admin(),
                    #"{"event":"update","contentState":{},"dismissalDate":"2030-01-01T00:00:00Z"}"#,
                    .unprocessableContent, "dismissalDate"
                ),
                (
                    .post, "/api/v1/activities/a-1/events", harness.admin(), #"{"event":"pause","contentState":{}}"#,
                    .unprocessableContent, "event"
                ),
                (
                    .post, "/api/v1/activities/a-1/events", harness.admin(), #"{"event":"end","contentState":{}}"#,
                    .notFound, "activityId"
                ),
            ]
            for (method, path, headers, body, status, field) in refusals {
                let answer = try await api.call(method, path, headers: headers, json: body)
                #expect(answer.status == status, "\(method) \(path) \(body): \(answer.text)")
                if !field.isEmpty { #expect(answer.field == field, "\(answer.text)") }
            }
            #expect(try await harness.snapshot() == before)
        }
    }
}
