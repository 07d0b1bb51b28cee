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

/// Every class of request Apple refuses is refused in Apple's form (status, `{"reason"}`, `apns-id`), and a refused
/// request stores nothing.
@Suite(.serialized, .sharesMachine, .timeLimit(.minutes(3)))
struct IngressRefusalTests {
    /// One malformed request and Apple's answer to it.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var path: String?
        var method = HTTPMethod.POST
        var headers = IngressHarness.headers()
        var body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        var authorized = true
        let status: Int
        let reason: String

        var testDescription: String { name }
    }

    /// An alert payload of exactly `size` bytes.
    static func payload(size: Int) -> [UInt8] {
        let frame = #"{"aps":{"alert":""}}"#
        return Array((#"{"aps":{"alert":""# + String(repeating: "x", count: size - frame.utf8.count) + #""}}"#).utf8)
    }

    static let cases: [Case] = [
        Case(name: "a token that is not hex", path: "/3/device/not-a-token", status: 400, reason: "BadDeviceToken"),
        Case(name: "a token of 8 bytes", path: "/3/device/0123456789abcdef", status: 400, reason: "BadDeviceToken"),
        Case(name: "no token", path: "/3/device/", status: 400, reason: "MissingDeviceToken"),
        Case(name: "another path", path: "/2/device/", status: 404, reason: "BadPath"),
        Case(name: "GET", method: .GET, body: [], status: 405, reason: "MethodNotAllowed"),
        Case(name: "no credentials", authorized: false, status: 403, reason: "MissingProviderToken"),
        Case(
            name: "a VoIP push to the bare bundle id", headers: IngressHarness.headers(pushType: "voip"), status: 400,
            reason: "BadTopic"),
        Case(
            name: "an alert to a VoIP topic, which no app has",
            headers: IngressHarness.headers(topic: EngineHarness.bundleID + ".voip"), status: 400,
            reason: "TopicDisallowed"),
        Case(
            name: "a push type Apple lacks", headers: IngressHarness.headers(pushType: "fax"), status: 400,
            reason: "InvalidPushType"),
        Case(name: "no topic", headers: [("apns-push-type", "alert")], status: 400, reason: "MissingTopic"),
        Case(
            name: "a background push at priority 10",
            headers: IngressHarness.headers(pushType: "background", priority: "10"), status: 400, reason: "BadPriority"),
        Case(
            name: "a background push without priority (Apple's default is 10)",
            headers: IngressHarness.headers(pushType: "background"), status: 400, reason: "BadPriority"),
        Case(name: "priority 7", headers: IngressHarness.headers(priority: "7"), status: 400, reason: "BadPriority"),
        Case(
            name: "an expiration that is not a number",
            headers: IngressHarness.headers() + [("apns-expiration", "tomorrow")], status: 400,
            reason: "BadExpirationDate"),
        Case(
            name: "an expiration past the year 9999, which no database timestamp holds",
            headers: IngressHarness.headers() + [("apns-expiration", "9223372036854775807")], status: 400,
            reason: "BadExpirationDate"),
        Case(
            name: "a collapse id of 65 bytes",
            headers: IngressHarness.headers() + [("apns-collapse-id", String(repeating: "c", count: 65))],
            status: 400, reason: "BadCollapseId"),
        Case(
            name: "an apns-id that is no UUID", headers: IngressHarness.headers(apnsID: "nope"), status: 400,
            reason: "BadMessageId"),
        Case(
            name: "two topics", headers: IngressHarness.headers() + [("apns-topic", EngineHarness.bundleID)],
            status: 400, reason: "DuplicateHeaders"),
        Case(name: "no payload", body: [], status: 400, reason: "PayloadEmpty"),
        Case(name: "an alert of 4097 bytes", body: payload(size: 4097), status: 413, reason: "PayloadTooLarge"),
        Case(
            name: "a VoIP push of 5121 bytes",
            headers: IngressHarness.headers(
                pushType: "voip", topic: EngineHarness.bundleID + ".voip"), body: payload(size: 5121), status: 413,
            reason: "PayloadTooLarge"),
        Case(name: "a payload that is not JSON", body: Array("hello".utf8), status: 400, reason: "BadRequestPayload"),
        Case(name: "a JSON array", body: Array("[1]".utf8), status: 400, reason: "BadRequestPayload"),
        Case(
            name: "a NUL in a string", body: Array(#"{"aps":{"alert":"a\u0000b"}}"#.utf8), status: 400,
            reason: "BadRequestPayload"),
    ]

    @Test func everyRefusalIsApplesAndChangesNothing() async throws {
        let harness = try await IngressHarness.start()
        let token = MockHarness.deviceToken(prefix: "b1").hex
        for refused in Self.cases {
            let answer = try await harness.post(
                path: refused.path ?? "/3/device/\(token)", method: refused.method, headers: refused.headers,
                body: refused.body, authorized: refused.authorized)
            #expect(answer.status == refused.status, "\(refused.name)")
            #expect(answer.reason == refused.reason, "\(refused.name)")
            #expect(answer.apnsID.flatMap(APNsID.init) != nil, "\(refused.name): the answer carries an apns-id")
        }
        let id = APNsID()
        let named = try await harness.post(
            path: "/3/device/\(token)", headers: IngressHarness.headers(pushType: "fax", apnsID: id.description),
            body: Array(#"{"aps":{}}"#.utf8))
        #expect(named.apnsID == id.description, "a refusal names the client's apns-id")
        // The largest pushes Apple takes pass.
        let largest = [
            (IngressHarness.headers(), Self.payload(size: 4096)),
            (
                IngressHarness.headers(pushType: "voip", topic: EngineHarness.bundleID + ".voip"),
                Self.payload(size: 5120)
            ),
        ]
        for (headers, body) in largest {
            let answer = try await harness.post(path: "/3/device/\(token)", headers: headers, body: body)
            #expect(answer.status == 200, "\(body.count) bytes: \(answer.reason ?? "")")
        }
        #expect(try await harness.relayedCount() == 2, "only the pushes that passed were stored")
        try await harness.stop()
    }

    @Test func providerTokensAreVerifiedAndKeepToTheirApps() async throws {
        let otherTeam = "OTHERTEAM1"
        let otherBundle = "com.example.other"
        let otherTeamKey = TestSigningKey.generate()
        let topicKey = TestSigningKey.generate()
        let harness = try await IngressHarness.start { engine in
            let keys = SigningKeyStore(client: engine.client)
            _ = try await AppStore(client: engine.client).put(
                ExternalID("other")!,
                AppDefinition(
                    name: "Other", bundleID: otherBundle, teamID: EngineHarness.teamID, defaultEnvironment: .sandbox))
            let held: [(TestSigningKey, String, [String])] = [
                (otherTeamKey, otherTeam, []), (topicKey, EngineHarness.teamID, [otherBundle]),
            ]
            for (key, team, topics) in held {
                let file = EngineHarness.keyFile()
                try key.writePrivateKey(to: file)
                _ = try await keys.add(
                    SigningKeyDefinition(teamID: team, keyID: key.keyID, environments: .both, topics: topics),
                    keyPath: file)
            }
        }
        let apiKeys = APIKeyStore(client: harness.engine.client)
        let shopSender = try await apiKeys.create(name: "shop", scope: .send, app: IngressHarness.appID)
        let otherSender = try await apiKeys.create(name: "other", scope: .send, app: ExternalID("other")!)
        let reader = try await apiKeys.create(name: "reader", scope: .read)
        let token = MockHarness.deviceToken(prefix: "c1")
        let impostor = TestSigningKey.generate(keyID: harness.engine.key.keyID)

        let refusals: [(String, ProviderTokenSource, Int, APNsReason)] = [
            (
                "a key Herald does not hold", try IngressHarness.tokens(TestSigningKey.generate()), 403,
                .invalidProviderToken
            ),
            ("a known key id with other material", try IngressHarness.tokens(impostor), 403, .invalidProviderToken),
            (
                "the right key naming another team", try IngressHarness.tokens(harness.engine.key, teamID: otherTeam),
                403,
                .invalidProviderToken
            ),
            (
                "a token signed two hours ago",
                try IngressHarness.tokens(harness.engine.key, clock: ManualClock(Date().addingTimeInterval(-7200))),
                403,
                .expiredProviderToken
            ),
            (
                "a token signed ten minutes ahead",
                try IngressHarness.tokens(harness.engine.key, clock: ManualClock(Date().addingTimeInterval(600))), 403,
                .invalidProviderToken
            ),
            ("no JWT", try harness.tokens(sending: "not.a.jwt"), 403, .invalidProviderToken),
            (
                "an unknown API key",
                try harness.tokens(sending: APIKeyStore.keyPrefix + String(repeating: "A", count: 43)),
                403, .invalidProviderToken
            ),
            ("another team's key", try IngressHarness.tokens(otherTeamKey, teamID: otherTeam), 400, .topicDisallowed),
            ("a key for another topic only", try IngressHarness.tokens(topicKey), 400, .topicDisallowed),
            ("another app's API key", try harness.tokens(sending: otherSender.secret), 400, .topicDisallowed),
            ("an API key that may only read", try harness.tokens(sending: reader.secret), 403, .forbidden),
        ]
        for (name, tokens, status, reason) in refusals {
            let push = try MockHarness.alert(token)
            let result = try await harness.send([push], tokens: tokens)[0]
            guard case .rejected(let rejection) = result else {
                Issue.record("\(name): \(result)")
                continue
            }
            #expect(rejection.status == status && rejection.reason == reason, "\(name): \(rejection)")
            #expect(rejection.apnsID == push.apnsID, "\(name)")
        }
        #expect(try await harness.relayedCount() == 0, "a refused push stores nothing")

        for (name, tokens) in [
            ("the key Herald holds", try IngressHarness.tokens(harness.engine.key)),
            ("the app's API key", try harness.tokens(sending: shopSender.secret)),
        ] {
            let result = try await harness.send([try MockHarness.alert(token)], tokens: tokens)[0]
            guard case .accepted = result else {
                Issue.record("\(name): \(result)")
                continue
            }
        }
        let keyed = try await harness.engine.client.query(
            "SELECT count(*) FROM notifications WHERE type = 'apns' AND api_key_id = \(shopSender.key.id)"
        ).scalar(Int.self)
        #expect(keyed == 1, "a push sent with an API key records the key")
        try await harness.stop()
    }

    /// Made-up API keys on many streams of one connection cost the database the address's allowance of lookups, not
    /// one per stream: the streams past it wait their turn, and each is still answered Apple's way.
    @Test func madeUpAPIKeysWaitTheirTurnForALookup() async throws {
        let (perSecond, burst, streams) = (5.0, 2, 8)
        let harness = try await IngressHarness.start(newKeyLookups: (perSecond, burst))
        let started = ContinuousClock.now
        let reasons = try await Self.postAtOnce(harness, streams: streams, tokenPrefix: "b2") { _ in
            APIKeyStore.keyPrefix + String((0..<43).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZ".randomElement()! })
        }.map(\.reason)
        let elapsed = ContinuousClock.now - started
        #expect(reasons == Array(repeating: "InvalidProviderToken", count: streams))
        // Two at once, then one each 200 ms: the last of eight waited at least (8 - 2) × 200 ms.
        let paced = Duration.seconds(Double(streams - burst) / perSecond)
        #expect(elapsed >= paced, "\(streams) lookups in \(elapsed), paced: \(paced)")
        #expect(try await harness.relayedCount() == 0)
        try await harness.stop()
    }

    /// A key the ingress has not seen yet, on many streams at once, is looked up once: the streams share the lookup
    /// rather than each waiting its own turn (at one lookup every five seconds, a second lookup would wait five).
    @Test func streamsBringingOneNewKeyShareItsLookup() async throws {
        let harness = try await IngressHarness.start(mode: .accept, newKeyLookups: (0.2, 1))
        let sender = try await APIKeyStore(client: harness.engine.client).create(
            name: "shop", scope: .send, app: IngressHarness.appID)
        let started = ContinuousClock.now
        let statuses = try await Self.postAtOnce(harness, streams: 10, tokenPrefix: "b3") { _ in sender.secret }
            .map(\.status)
        let elapsed = ContinuousClock.now - started
        #expect(statuses == Array(repeating: 200, count: 10))
        #expect(elapsed < .seconds(5), "ten streams with one new key answered in \(elapsed)")
        try await harness.stop()
    }

    /// Posts an alert on `streams` streams at once, stream `i` to its own token with `bearer credential(i)`, and returns
    /// each answer's status and reason.
    static func postAtOnce(
        _ harness: IngressHarness, streams: Int, tokenPrefix: String, credential: (Int) -> String
    ) async throws -> [(status: Int, reason: String?)] {
        try await withThrowingTaskGroup(of: (status: Int, reason: String?).self) { group in
            for index in 0..<streams {
                let token = MockHarness.deviceToken(prefix: tokenPrefix, index: index).hex
                let authorization = "bearer \(credential(index))"
                group.addTask {
                    let answer = try await harness.post(
                        path: "/3/device/\(token)",
                        headers: IngressHarness.headers() + [("authorization", authorization)],
                        body: Array(#"{"aps":{"alert":"hi"}}"#.utf8), authorized: false)
                    return (answer.status, answer.reason)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
