import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldCore
import HeraldIngress
import HeraldTesting
import NIOHTTP1
import Postgres
import Testing

/// The APNs ingress as an APNs client sees it: Herald's own APNs client sends to it as it would to Apple, and what
/// reaches `apns-mock` through the delivery engine is what the client sent.
@Suite(.serialized, .sharesMachine, .timeLimit(.minutes(3)))
struct IngressRelayTests {
    @Test func validPushesReachAppleUnchangedAndAreAnsweredWithApplesAnswer() async throws {
        let harness = try await IngressHarness.start()
        let later = Date().addingTimeInterval(3600)
        let pushes = [
            // Spaces and key order of the client's own, which must survive storage.
            try PushRequest(
                deviceToken: MockHarness.deviceToken(prefix: "a1"), bundleID: EngineHarness.bundleID, pushType: .alert,
                priority: .powerConsidered, expiration: .at(later), collapseID: CollapseID("score"),
                payloadJSON: Data(#"{"match": 42, "aps":{"alert":{"title":"Goal","body":"1:0"}},"z":[1,2.5,"x"]}"#.utf8)
            ),
            try PushRequest(
                deviceToken: MockHarness.deviceToken(prefix: "a2"), bundleID: EngineHarness.bundleID,
                pushType: .background, expiration: .immediately,
                payloadJSON: Data(#"{"aps":{"content-available":1}}"#.utf8)),
            try PushRequest(
                deviceToken: MockHarness.deviceToken(prefix: "a3"), bundleID: EngineHarness.bundleID, pushType: .voip,
                payloadJSON: Data(#"{"caller":"Ada"}"#.utf8)),
        ]
        let results = try await harness.send(pushes)
        for (push, result) in zip(pushes, results) {
            guard case .accepted(let receipt) = result else {
                Issue.record("\(push.pushType) push: \(result)")
                continue
            }
            #expect(receipt.apnsID == push.apnsID, "Apple's answer echoes the client's apns-id")
            #expect(receipt.uniqueID != nil, "and passes on Apple's apns-unique-id")
            let token = try #require(push.deviceToken)
            let received = try #require(await harness.received(token: token), "\(push.pushType) reached apns-mock")
            #expect(received.header("apns-id") == push.apnsID.description)
            #expect(received.header("apns-push-type") == push.pushType.headerValue)
            #expect(received.header("apns-topic") == push.topic)
            #expect(received.header("apns-priority") == String(push.priority.rawValue))
            #expect(received.header("apns-expiration") == push.expiration?.headerValue)
            #expect(received.header("apns-collapse-id") == push.collapseID?.value)
            #expect(received.body == Array(push.payload), "the payload arrives byte for byte")
        }
        #expect(try await harness.relayedCount() == 3)
        let types = try await harness.engine.client.query(
            "SELECT DISTINCT notification_type, status FROM push_notification_logs"
        ).decode((String, String).self)
        #expect(types.map(\.0) == ["apns"] && types.map(\.1) == ["sent"], "each push is logged as an apns push")

        // A client sending a push again after a lost answer gets its answer, and Herald stores nothing new.
        let again = try await harness.send([pushes[0]])
        guard case .accepted(let receipt) = again[0] else {
            Issue.record("a resent push: \(again[0])")
            return
        }
        #expect(receipt.apnsID == pushes[0].apnsID)
        #expect(try await harness.relayedCount() == 3)
        // The same apns-id for another push is refused: it names the first.
        let reused = try PushRequest(
            apnsID: pushes[0].apnsID, deviceToken: MockHarness.deviceToken(prefix: "a4"),
            bundleID: EngineHarness.bundleID, pushType: .alert, payloadJSON: Data(#"{"aps":{"alert":"hi"}}"#.utf8))
        expect(try await harness.send([reused])[0], is: 400, .badMessageID, id: reused.apnsID)
        #expect(try await harness.relayedCount() == 3)
        try await harness.stop()
    }

    @Test func aDeadTokensAnswerComesBackAndAKnownDeviceIsDeactivated() async throws {
        let harness = try await IngressHarness.start()
        let appleTime = Int64(Date().timeIntervalSince1970 * 1000)
        harness.engine.sandbox.script(
            deviceTokenPrefix: "dead", .reject(status: 410, reason: "Unregistered", timestamp: appleTime))
        let known = MockHarness.deviceToken(prefix: "dead", index: 1)
        let unknown = MockHarness.deviceToken(prefix: "dead", index: 2)
        let user = try await harness.engine.insertUser()
        let device = try await harness.engine.insertDevice(
            user: user, token: known.hex, registeredAt: Date().addingTimeInterval(-86400))
        let pushes = try [known, unknown].map { try MockHarness.alert($0) }
        let results = try await harness.send(pushes)
        for (push, result) in zip(pushes, results) {
            expect(result, is: 410, .unregistered, id: push.apnsID)
            if case .rejected(let rejection) = result {
                let timestamp = rejection.timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                #expect(timestamp == appleTime, "Apple's timestamp comes back in milliseconds")
            }
        }
        // The engine deactivates devices right after it commits the log rows (`DeliveryStore.record`), and the ingress
        // answers from the log row: on a busy machine the deactivation can land just after the answer.
        var registered = try await harness.engine.device(device)
        let deadline = ContinuousClock.now + .seconds(10)
        while registered.active, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            registered = try await harness.engine.device(device)
        }
        #expect(!registered.active && registered.reason == "unregistered", "a registered token gets its hygiene")
        let unseen = try await harness.engine.client.query(
            "SELECT user_id <> \(user), is_active, deactivation_reason FROM device_tokens WHERE token = \(unknown.hex)"
        ).decode((Bool, Bool, String?).self)
        #expect(unseen.count == 1 && unseen[0].0 && !unseen[0].1 && unseen[0].2 == "not_registered")
        try await harness.stop()
    }

    /// A token another app registered is that app's device: a push to it under this app's topic is refused as Apple
    /// would refuse it, and neither stored nor sent, so the other app's device is never moved or deactivated.
    @Test func aTokenOfAnotherAppIsRefusedAndItsDeviceUntouched() async throws {
        let harness = try await IngressHarness.start()
        let client = harness.engine.client
        let other = try await client.query(
            """
            INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment)
            VALUES ('other', 'Other', 'com.example.other', 'OTHERTEAM1', 'sandbox') RETURNING id
            """
        ).scalar(UUID.self)
        let token = MockHarness.deviceToken(prefix: "0a")
        let user = try await harness.engine.insertUser()
        let device = try await harness.engine.insertDevice(user: user, token: token.hex)
        try await client.execute("UPDATE device_tokens SET app_id = \(other) WHERE id = \(device)")
        let results = try await harness.send([try MockHarness.alert(token)])
        guard case .rejected(let rejection) = results.first else {
            Issue.record("a push to another app's token: \(results)")
            return
        }
        #expect(rejection.status == 400 && rejection.reason == .deviceTokenNotForTopic)
        #expect(try await harness.relayedCount() == 0)
        let row = try await client.query(
            "SELECT is_active, environment, app_id FROM device_tokens WHERE token = \(token.hex)"
        ).decode((Bool, String, UUID?).self)
        #expect(
            row.map { [$0.0 ? "active" : "inactive", $0.1, $0.2?.uuidString ?? ""] } == [
                ["active", "sandbox", other.uuidString]
            ])
        try await harness.stop()
    }

    /// The first pushes of a fresh ingress arrive together: none is refused while the keys are first read, and they
    /// are stored many to a statement; a resend and an id used twice are told apart afterwards.
    @Test func concurrentFirstPushesAreAllStoredInBatches() async throws {
        let harness = try await IngressHarness.start(mode: .accept)
        let tokens = (0..<200).map { MockHarness.deviceToken(prefix: "cc", index: $0) }
        var pushes = try tokens.map { try MockHarness.alert($0) }
        // Then the same push again, and another push under an id already used.
        pushes.append(pushes[0])
        pushes.append(try MockHarness.alert(tokens[1], id: pushes[2].apnsID))
        // Over four connections at once, as a client's pool opens them.
        let parts = stride(from: 0, to: 200, by: 50).map { Array(pushes[$0..<$0 + 50]) }
        let firsts = try await withThrowingTaskGroup(of: [PushResult].self) { group in
            for part in parts { group.addTask { try await harness.send(part) } }
            return try await group.reduce([], +)
        }
        let results = firsts + (try await harness.send(Array(pushes.suffix(2))))
        let accepted = results.filter { if case .accepted = $0 { true } else { false } }
        #expect(accepted.count == 201, "\(Set(results.map(\.description)).prefix(3))")
        if case .rejected(let rejection) = results.last {
            #expect(rejection.status == 400 && rejection.reason == .badMessageID)
        } else {
            Issue.record("an id used by another push is refused: \(results.last.map(\.description) ?? "none")")
        }
        #expect(try await harness.relayedCount() == 200)
        try await harness.stop()
    }

    /// Two pushes to different tokens under one `apns-id`, sent at the same moment on two connections (so often in
    /// one stored batch): one is stored and answered 200, the other is refused `BadMessageId`; neither is told it was
    /// stored when the other was.
    @Test func oneIDSentTwiceAtOnceIsStoredOnce() async throws {
        let harness = try await IngressHarness.start(mode: .accept)
        let pairs = 40
        let firsts = try (0..<pairs).map { try MockHarness.alert(MockHarness.deviceToken(prefix: "d1", index: $0)) }
        let seconds = try (0..<pairs).map {
            try MockHarness.alert(MockHarness.deviceToken(prefix: "d2", index: $0), id: firsts[$0].apnsID)
        }
        // Pair i goes out i-th on two connections at once; two more connections do the same with the other half.
        let half = pairs / 2
        let parts = [
            Array(firsts[..<half]), Array(seconds[..<half]), Array(seconds[half...]), Array(firsts[half...]),
        ]
        let answered = try await withThrowingTaskGroup(of: [(APNsID, PushResult)].self) { group in
            for part in parts {
                group.addTask { zip(part.map(\.apnsID), try await harness.send(part)).map { ($0, $1) } }
            }
            return try await group.reduce([], +)
        }
        for (id, results) in Dictionary(grouping: answered, by: \.0) {
            let accepted = results.filter { if case .accepted = $0.1 { true } else { false } }.count
            let refused = results.filter {
                if case .rejected(let rejection) = $0.1 { rejection.reason == .badMessageID } else { false }
            }.count
            #expect(accepted == 1 && refused == 1, "\(id): \(results.map(\.1.description))")
        }
        #expect(try await harness.relayedCount() == pairs)
        try await harness.stop()
    }

    @Test func acceptModeAnswersOnceThePushIsStored() async throws {
        let harness = try await IngressHarness.start(mode: .accept)
        let token = MockHarness.deviceToken(prefix: "ac")
        let id = APNsID()
        let answer = try await harness.post(
            path: "/3/device/\(token.hex)", headers: IngressHarness.headers(apnsID: id.description),
            body: Array(#"{"aps":{"alert":"stored"}}"#.utf8))
        #expect(answer.status == 200)
        #expect(answer.apnsID == id.description)
        #expect(answer.headers.first(name: "herald-queued") == "true")
        #expect(try await harness.received(token: token)?.header("apns-id") == id.description, "and delivers it")
        try await harness.stop()
    }

    @Test func pastTheWaitTheClientIsToldThePushIsQueued() async throws {
        // Apple refusing with 503 pauses sending and keeps the push; the client is answered after 2 s, not 10.
        let harness = try await IngressHarness.start(wait: .seconds(2))
        harness.engine.sandbox.script(
            deviceTokenPrefix: "5e", .reject(status: 503, reason: "ServiceUnavailable", timestamp: nil))
        let token = MockHarness.deviceToken(prefix: "5e")
        let id = APNsID()
        let begin = ContinuousClock.now
        let answer = try await harness.post(
            path: "/3/device/\(token.hex)", headers: IngressHarness.headers(apnsID: id.description),
            body: Array(#"{"aps":{"alert":"later"}}"#.utf8))
        let waited = ContinuousClock.now - begin
        #expect(answer.status == 200)
        #expect(answer.headers.first(name: "herald-queued") == "true")
        #expect(answer.apnsID == id.description)
        #expect(waited >= .seconds(2) && waited < .seconds(8), "answered at the wait bound (\(waited))")
        let open = try await harness.engine.client.query("SELECT count(*) FROM deliveries WHERE id = \(id.uuid)")
            .scalar(Int.self)
        #expect(open == 1, "the push is still Herald's to deliver")
        harness.engine.sandbox.clearScripts()
        let delivered = try await harness.received(token: token, status: 200, timeout: .seconds(60))
        #expect(delivered?.header("apns-id") == id.description, "and Herald delivers it once Apple takes pushes again")
        try await harness.stop()
    }
}

/// Expects Apple's refusal `reason` with `status`, naming `id`.
func expect(
    _ result: PushResult, is status: Int, _ reason: APNsReason, id: APNsID,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard case .rejected(let rejection) = result else {
        Issue.record("expected \(status) \(reason), got \(result)", sourceLocation: sourceLocation)
        return
    }
    #expect(rejection.status == status, sourceLocation: sourceLocation)
    #expect(rejection.reason == reason, sourceLocation: sourceLocation)
    #expect(rejection.apnsID == id, "the answer names the client's apns-id", sourceLocation: sourceLocation)
}
