import Testing

@testable import APNsMock

/// `apns-mock` holds Live Activity and widgets payloads to the shape Apple documents, so a wrong payload from
/// Herald fails its tests instead of passing unseen.
@Suite struct MockPayloadRulesTests {
    static let cases: [(pushType: String, payload: String, refused: Bool)] = [
        ("widgets", #"{"aps":{"content-changed":true}}"#, false),
        ("widgets", #"{"aps":{"alert":"hi"}}"#, true),
        ("liveactivity", #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"a":1}}}"#, false),
        ("liveactivity", #"{"aps":{"event":"update","timestamp":1700000000.5,"content-state":{}}}"#, true),
        ("liveactivity", #"{"aps":{"event":"update","content-state":{}}}"#, true),
        ("liveactivity", #"{"aps":{"event":"update","timestamp":1700000000}}"#, true),
        ("liveactivity", #"{"aps":{"event":"pause","timestamp":1700000000,"content-state":{}}}"#, true),
        (
            "liveactivity",
            #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{},"dismissal-date":1700000000}}"#, true
        ),
        ("liveactivity", #"{"aps":{"event":"end","timestamp":1,"content-state":{},"dismissal-date":2}}"#, false),
        (
            "liveactivity",
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"T","attributes":{},"alert":{"body":"b"}}}"#,
            false
        ),
        (
            "liveactivity", #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes":{},"alert":"b"}}"#,
            true
        ),
        (
            "liveactivity",
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"T","attributes":{}}}"#, true
        ),
        ("liveactivity", "not json", true),
        ("alert", "anything: the mock reads only the fixed shapes", false),
    ]

    @Test(arguments: cases.indices) func payloadShapes(_ index: Int) {
        let (pushType, payload, refused) = Self.cases[index]
        let reason = MockPayloadRules.refusal(pushType: pushType, body: Array(payload.utf8))
        #expect((reason != nil) == refused, "\(pushType) \(payload): \(reason ?? "accepted")")
    }
}
