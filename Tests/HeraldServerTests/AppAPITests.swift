import APNsCore
import APNsMock
import Cryptography
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

/// Apps over the API (admin key): create, update, read, list and delete; registrations name their app.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct AppAPITests {
    @Test func appsAreManagedByAdminKeysAndDevicesRegisterForThem() async throws {
        let harness = try await APIHarness.make()
        _ = try await harness.services.apps.defineDefault(
            bundleID: "com.example.one", teamID: "TEAM000001", environment: .sandbox)
        try await harness.run { api in
            let two = #"{"name":"Two","bundleId":"com.example.two","teamId":"TEAM000002"}"#
            let created = try await api.call(.put, "/api/v1/apps/two", headers: harness.admin(), json: two)
            #expect(created.status == .created)
            #expect(created.json?["defaultEnvironment"] == .string("production"))
            #expect(created.json?["isDefault"] == .bool(false))
            #expect(try await api.call(.put, "/api/v1/apps/two", headers: harness.admin(), json: two).status == .ok)
            let taken = try await api.call(.put, "/api/v1/apps/three", headers: harness.admin(), json: two)
            #expect(taken.status == .conflict && taken.field == "bundleId")
            let badTeam = try await api.call(
                .put, "/api/v1/apps/three", headers: harness.admin(),
                json: #"{"name":"Three","bundleId":"com.example.three","teamId":"NOT A TEAM"}"#)
            #expect(badTeam.status == .unprocessableContent && badTeam.field == "teamId")
            let readKey = harness.bearer(harness.keys[.read]!)
            #expect(try await api.call(.get, "/api/v1/apps", headers: readKey).status == .ok)
            #expect(try await api.call(.put, "/api/v1/apps/two", headers: readKey, json: two).status == .forbidden)
            #expect(try await api.call(.get, "/api/v1/apps", headers: try harness.user("alice")).status == .forbidden)
            let listed = try await api.call(.get, "/api/v1/apps", headers: harness.admin())
            #expect(Self.list(listed.json?["apps"]).compactMap { $0["id"]?.stringValue } == ["default", "two"])

            try await DeviceAPITests.setUp(api, users: ["alice"])
            let registered = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS","appId":"two"}"#)
            #expect(registered.status == .created)
            #expect(registered.json?["appId"] == .string("two"))
            #expect(registered.json?["topic"] == .string("com.example.two"))
            let unnamed = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS"}"#)
            #expect(unnamed.json?["appId"] == .string("default"))
            let unknown = try await api.call(
                .post, "/api/v1/devices/register", headers: try harness.user("alice"),
                json: #"{"token":"\#(DeviceAPITests.hexToken())","platform":"iOS","appId":"nowhere"}"#)
            #expect(unknown.status == .notFound && unknown.field == "appId")

            let keepDefault = try await api.call(.delete, "/api/v1/apps/default", headers: harness.admin())
            #expect(keepDefault.status == .conflict)
            #expect(try await api.call(.delete, "/api/v1/apps/two", headers: harness.admin()).status == .noContent)
            #expect(try await api.call(.get, "/api/v1/apps/two", headers: harness.admin()).status == .notFound)
            let devices = try await api.call(.get, "/api/v1/devices", headers: try harness.user("alice"))
            #expect(Self.list(devices.json?["devices"]).count == 1, "the deleted app's device went with it")
            let keys = try await api.call(.get, "/api/v1/apns-keys", headers: harness.admin())
            #expect(keys.status == .ok && Self.list(keys.json?["keys"]).isEmpty)
        }
    }

    /// Operators look at one app: the log and the stats take `appId`.
    @Test func logsAndStatsFilterByApp() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let (_, _, device) = try await LogsAPITests.seed(api)
            let two = #"{"name":"Two","bundleId":"com.example.two","teamId":"TEAM000002"}"#
            #expect(
                try await api.call(.put, "/api/v1/apps/two", headers: harness.admin(), json: two).status == .created)
            try await harness.client.execute(
                "UPDATE device_tokens SET app_id = (SELECT id FROM apps WHERE external_id = 'two') WHERE id = \(UUID(uuidString: device)!)"
            )
            let ofTwo = try await api.call(.get, "/api/v1/logs?appId=two&limit=500", headers: harness.admin())
            #expect(LogsAPITests.items(ofTwo).count == 20)
            #expect(LogsAPITests.items(ofTwo).allSatisfy { $0["deviceId"]?.stringValue == device })
            let ofNone = try await api.call(.get, "/api/v1/logs?appId=elsewhere", headers: harness.admin())
            #expect(ofNone.status == .ok && LogsAPITests.items(ofNone).isEmpty)
            let bad = try await api.call(.get, "/api/v1/logs?appId=not%20an%20id", headers: harness.admin())
            #expect(bad.status == .unprocessableContent && bad.field == "appId")
            let stats = try await api.call(.get, "/api/v1/stats?window=1h&appId=two", headers: harness.admin())
            #expect(stats.status == .ok)
            let badStats = try await api.call(.get, "/api/v1/stats?appId=not%20an%20id", headers: harness.admin())
            #expect(badStats.status == .unprocessableContent && badStats.field == "appId")
        }
    }

    static func list(_ value: JSONValue?) -> [JSONValue] {
        guard case .array(let items)? = value else { return [] }
        return items
    }

    /// Keys added over the API are sealed under the master key and never answered back; without a master key the
    /// server says how to add them instead.
    @Test func signingKeysAddedOverTheAPIAreSealedAndNeverReturned() async throws {
        var configured = try await APIHarness.make()
        let pem = TestSigningKey.generate(keyID: "KEY0000003").privateKeyPEM
        let escaped = pem.replacingOccurrences(of: "\n", with: "\\n")
        let body =
            #"{"teamId":"TEAM000001","keyId":"KEY0000003","topics":["com.example.two"],"privateKey":"\#(escaped)"}"#
        let unsealed = configured
        try await unsealed.run { api in
            let refused = try await api.call(.post, "/api/v1/apns-keys", headers: unsealed.admin(), json: body)
            #expect(refused.status == .conflict && refused.field == "privateKey")
        }
        configured = try await APIHarness.make()
        configured.settings.masterKey = try AES256GCM(key: SecureRandom.bytes(count: 32))
        let harness = configured
        try await harness.run { api in
            let added = try await api.call(.post, "/api/v1/apns-keys", headers: harness.admin(), json: body)
            #expect(added.status == .created)
            #expect(added.json?["storage"] == .string("sealed") && added.json?["state"] == .string("active"))
            let listed = try await api.call(.get, "/api/v1/apns-keys", headers: harness.admin())
            for answer in [added, listed] {
                #expect(!answer.text.contains("PRIVATE KEY") && !answer.text.contains("privateKey"))
            }
            let notAKey = try await api.call(
                .post, "/api/v1/apns-keys", headers: harness.admin(),
                json: #"{"teamId":"TEAM000001","keyId":"KEY0000004","privateKey":"hello"}"#)
            #expect(notAKey.status == .unprocessableContent && notAKey.field == "privateKey")
            let sendKey = harness.bearer(harness.keys[.send]!)
            #expect(try await api.call(.post, "/api/v1/apns-keys", headers: sendKey, json: body).status == .forbidden)

            let retired = try await api.call(
                .delete, "/api/v1/apns-keys/TEAM000001/KEY0000003", headers: harness.admin())
            #expect(retired.status == .ok && retired.json?["state"] == .string("retiring"))
            let again = try await api.call(.delete, "/api/v1/apns-keys/TEAM000001/KEY0000003", headers: harness.admin())
            #expect(again.status == .notFound)
        }
    }
}
