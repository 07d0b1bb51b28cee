import APNs
import APNsCore
import Foundation
import HeraldTesting
import Testing

@Suite struct PayloadTests {
    @Test func seedPayloadEncodesWithCustomKeysBesideAps() throws {
        let payload = Payload(
            aps: APS(
                alert: Alert(title: "New Feedback", body: "Feature request: Dark mode support"), badge: 1,
                sound: .default, mutableContent: true),
            custom: [
                "type": .string("new_feedback"), "feedbackId": .string("550e8400-e29b-41d4-a716-446655440000"),
                "actionUrl": .string("feedbackkit://feedback/550e8400"),
            ])
        let json = String(decoding: try payload.encoded(), as: UTF8.self)
        #expect(
            json
                == #"{"actionUrl":"feedbackkit://feedback/550e8400","#
                + #""aps":{"alert":{"body":"Feature request: Dark mode support","title":"New Feedback"},"#
                + #""badge":1,"mutable-content":1,"sound":"default"},"#
                + #""feedbackId":"550e8400-e29b-41d4-a716-446655440000","type":"new_feedback"}"#
        )
        #expect(try JSONDecoder().decode(Payload.self, from: Data(json.utf8)) == payload)
    }

    @Test func apsKeysUseApplesSpelling() throws {
        let aps = APS(
            sound: .critical(name: "alarm.caf", volume: 0.5), threadID: "t", category: "c", contentAvailable: true,
            targetContentID: "x", interruptionLevel: .timeSensitive, relevanceScore: 0.25, filterCriteria: "work",
            timestamp: 1, event: .update, contentState: .object(["score": .int(2)]), staleDate: 3, dismissalDate: 4,
            attributesType: "Match", attributes: .object(["team": .string("A")]), inputPushToken: true)
        let json = String(decoding: try Payload(aps: aps).encoded(), as: UTF8.self)
        for key in [
            #""thread-id":"t""#, #""content-available":1"#, #""target-content-id":"x""#,
            #""interruption-level":"time-sensitive""#, #""relevance-score":0.25"#, #""filter-criteria":"work""#,
            #""event":"update""#, #""content-state":{"score":2}"#, #""stale-date":3"#, #""dismissal-date":4"#,
            #""sound":{"critical":1,"name":"alarm.caf","volume":0.5}"#, #""attributes-type":"Match""#,
            #""attributes":{"team":"A"}"#, #""input-push-token":1"#,
        ] {
            #expect(json.contains(key), "\(key) missing from \(json)")
        }
    }

    @Test func oversizedBodyIsShortenedUTF8SafelyWithEllipsis() throws {
        let body = String(repeating: "é🙂a", count: 2000)
        let payload = Payload(aps: APS(alert: Alert(title: "T", body: body)))
        let (fitted, json) = try payload.fitted(toLimit: 4096)
        #expect(json.count <= 4096)
        #expect(json.count > 4000, "keeps as much as fits")
        let shortened = try #require(fitted.aps.alert?.body)
        #expect(shortened.hasSuffix("…"))
        #expect(body.hasPrefix(shortened.dropLast()))
        #expect(String(data: json, encoding: .utf8) != nil)
    }

    @Test func payloadThatCannotBeShortenedIsRefusedBeforeSending() {
        let payload = Payload(
            aps: APS(alert: Alert(body: "hi")), custom: ["blob": .string(String(repeating: "x", count: 5000))])
        #expect(throws: PushRequestError.payload(.tooLarge(size: 5041, limit: 4096))) {
            try PushRequest(deviceToken: MockHarness.deviceToken(), bundleID: "b", pushType: .alert, payload: payload)
        }
        let raw = Data(("{\"a\":\"" + String(repeating: "x", count: 4100) + "\"}").utf8)
        #expect(throws: PushRequestError.payload(.tooLarge(size: raw.count, limit: 4096))) {
            try PushRequest(deviceToken: MockHarness.deviceToken(), bundleID: "b", pushType: .alert, payloadJSON: raw)
        }
    }

    @Test func voipAllowsFiveKilobytes() throws {
        let raw = Data(("{\"a\":\"" + String(repeating: "x", count: 5000) + "\"}").utf8)
        let request = try PushRequest(
            deviceToken: MockHarness.deviceToken(), bundleID: "b", pushType: .voip, payloadJSON: raw)
        #expect(request.payload.count == raw.count)
    }

    @Test(arguments: [
        (PushType.alert, "com.a"), (.background, "com.a"), (.voip, "com.a.voip"), (.complication, "com.a.complication"),
        (.fileProvider, "com.a.pushkit.fileprovider"), (.liveActivity, "com.a.push-type.liveactivity"),
        (.location, "com.a.location-query"), (.pushToTalk, "com.a.voip-ptt"), (.widgets, "com.a.push-type.widgets"),
        (.controls, "com.a.push-type.controls"),
    ])
    func topicCarriesThePushTypeSuffix(type: PushType, topic: String) throws {
        #expect(type.topic(forBundleID: "com.a") == topic)
        #expect(type.topic(forBundleID: topic) == topic, "an already suffixed topic is kept")
        let request = try PushRequest(
            deviceToken: MockHarness.deviceToken(), bundleID: "com.a", pushType: type, payloadJSON: Data("{}".utf8))
        #expect(request.topic == topic)
    }

    @Test func backgroundPushesUsePriorityFiveAndRefuseTen() throws {
        let request = try PushRequest(
            deviceToken: MockHarness.deviceToken(), bundleID: "b", pushType: .background,
            payloadJSON: Data(#"{"aps":{"content-available":1}}"#.utf8))
        #expect(request.priority == .powerConsidered)
        #expect(throws: PushRequestError.priorityNotAllowed(.immediate, .background)) {
            try PushRequest(
                deviceToken: MockHarness.deviceToken(), bundleID: "b", pushType: .background, priority: .immediate,
                payloadJSON: Data("{}".utf8))
        }
    }

    @Test func identifiersAreValidatedOnce() {
        #expect(CollapseID(String(repeating: "c", count: 64)) != nil)
        #expect(CollapseID(String(repeating: "c", count: 65)) == nil)
        #expect(DeviceToken(hex: String(repeating: "ABCD", count: 8))?.hex == String(repeating: "abcd", count: 8))
        #expect(DeviceToken(hex: String(repeating: "abc", count: 11)) == nil)
        #expect(DeviceToken(hex: String(repeating: "zz", count: 16)) == nil)
        #expect(!String(describing: DeviceToken(hex: String(repeating: "abcdef01", count: 4))!).contains("abcdef"))
        #expect(APNsID("9F1E6C4B-0000-4000-8000-000000000001")?.description == "9f1e6c4b-0000-4000-8000-000000000001")
        #expect(PushExpiration.at(Date(timeIntervalSince1970: 1_700_000_000.9)).headerValue == "1700000000")
        #expect(PushExpiration.immediately.headerValue == "0")
    }
}

@Suite struct APNsIDTests {
    @Test func formatsAndParsesLikeFoundationInLowercase() throws {
        for _ in 0..<200 {
            let uuid = UUID()
            let id = APNsID(uuid)
            #expect(id.description == uuid.uuidString.lowercased())
            #expect(APNsID(uuid.uuidString) == id)
            #expect(APNsID(uuid.uuidString.lowercased()) == id)
        }
    }

    @Test func generatedIDsAreVersionFourAndDistinct() {
        let ids = (0..<1000).map { _ in APNsID() }
        #expect(Set(ids).count == 1000)
        for id in ids {
            let text = id.description
            #expect(UUID(uuidString: text) == id.uuid)
            #expect(Array(text)[14] == "4")
            #expect("89ab".contains(Array(text)[19]))
        }
    }

    @Test func rejectsMalformedIDs() {
        for text in [
            "", "not-a-uuid", "9f1e6c4b-0000-4000-8000-00000000000", "9f1e6c4b-0000-4000-8000-0000000000001",
            "9f1e6c4b00000-4000-8000-000000000001", "9f1e6c4g-0000-4000-8000-000000000001",
        ] {
            #expect(APNsID(text) == nil, "\(text)")
        }
    }
}
