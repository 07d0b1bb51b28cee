import APNsMock
import Foundation
import FoundationNetworking
import HeraldTesting
import LocalServices
import Postgres
import Testing

extension Networked {
    /// Broadcast channels through `herald serve` to `apns-mock`: a channel is made with Apple and listed, a
    /// broadcast to it is one APNs request with Apple's headers and expiration per storage policy and one log row,
    /// the channel is deleted, and Apple's refusals come back typed.
    @Suite struct BroadcastChannelTests {
        typealias Serve = HeraldServeDeliveryTests

        @Test func channelsAreMadeBroadcastToAndDeletedWithOneRequestPerBroadcast() async throws {
            let harness = try await EngineHarness.start()
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Serve.startGateway(harness, keyFile: keyFile)
            let (server, base, key) = (gateway.server, gateway.base, gateway.key)
            defer { if server.process.isRunning { server.process.terminate() } }
            func call(_ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, String) {
                try await Serve.request(method, base + path, key: key, body: body)
            }
            func field(_ name: String, _ json: String) -> String? {
                LiveActivityTests.field(name, in: json)
            }

            let created = try await call("POST", "/channels", #"{"appId":"default","messageStoragePolicy":0}"#)
            #expect(created.0 == 201, "\(created.1)")
            let channel = try #require(field("id", created.1))
            let apnsChannel = try #require(field("apnsChannelId", created.1))
            #expect(harness.sandbox.channelCount == 1)
            let storing = try #require(
                field("id", try await call("POST", "/channels", #"{"appId":"default","messageStoragePolicy":1}"#).1))
            let listed = try await call("GET", "/channels")
            #expect(listed.0 == 200 && listed.1.contains(apnsChannel) && listed.1.contains(storing))

            let before = harness.sandbox.recordedRequests.count
            let sent = try await call(
                "POST", "/channels/\(channel)/broadcasts",
                #"{"event":"update","contentState":{"home":2,"away":1},"priority":10}"#)
            #expect(sent.0 == 201 && field("status", sent.1) == "sent", "\(sent.1)")
            #expect(field("apnsUniqueId", sent.1) != nil)
            let requests = harness.sandbox.recordedRequests.dropFirst(before)
            #expect(requests.count == 1, "one APNs request per broadcast, whatever the audience")
            let broadcast = try #require(requests.first)
            #expect(broadcast.path == "/4/broadcasts/apps/\(EngineHarness.bundleID)")
            #expect(broadcast.header("apns-channel-id") == apnsChannel)
            #expect(broadcast.header("apns-expiration") == "0" && broadcast.header("apns-priority") == "10")
            #expect(broadcast.header("apns-push-type") == "liveactivity" && broadcast.header("apns-topic") == nil)
            #expect(broadcast.header("apns-request-id") == field("id", sent.1))
            let log = try await call("GET", "/channels/\(channel)/broadcasts")
            #expect(log.0 == 200 && log.1.components(separatedBy: #""status":"sent""#).count == 2, "\(log.1)")

            let kept = try await call(
                "POST", "/channels/\(storing)/broadcasts", #"{"event":"end","contentState":{"home":3,"away":1}}"#)
            #expect(kept.0 == 201, "\(kept.1)")
            let keptRequest = try #require(harness.sandbox.recordedRequests.last)
            let expiration = Double(keptRequest.header("apns-expiration") ?? "") ?? 0
            #expect(abs(expiration - Date().addingTimeInterval(8 * 3600).timeIntervalSince1970) < 120)
            let storesNothing = try await call(
                "POST", "/channels/\(channel)/broadcasts",
                #"{"event":"update","contentState":{},"expiration":"2099-01-01T00:00:00Z"}"#)
            #expect(storesNothing.0 == 422 && field("field", storesNothing.1) == "expiration")

            #expect(try await call("DELETE", "/channels/\(channel)").0 == 204)
            #expect(harness.sandbox.channelCount == 1)
            #expect(
                try await call("POST", "/channels/\(channel)/broadcasts", #"{"event":"end","contentState":{}}"#).0
                    == 404)

            // The same from the command line, through the key of the app's team.
            let environment = try harness.heraldEnvironment(keyFile: keyFile)
            let made = try await BuiltProgram.herald.run(
                ["channels", "create", "--app", "default", "--storage-policy", "1"], environment: environment)
            #expect(made.status == 0 && harness.sandbox.channelCount == 2, "\(made.status) \(made.output)")
            let cliChannel = try #require(
                made.output.split(separator: "\n").first { $0.hasPrefix("created ") }?.split(separator: " ")[1])
            let cliList = try await BuiltProgram.herald.run(["channels", "list"], environment: environment)
            #expect(cliList.output.contains(cliChannel))
            let removed = try await BuiltProgram.herald.run(
                ["channels", "delete", String(cliChannel)], environment: environment)
            #expect(removed.status == 0 && harness.sandbox.channelCount == 1, "\(removed.output)")

            // Apple's refusals, typed: a channel it no longer knows, its limit, a capability not enabled.
            try await harness.client.execute(
                """
                INSERT INTO broadcast_channels (channel_id, app_id, environment, message_storage_policy)
                SELECT 'Z29uZQ==', id, 'sandbox', 0 FROM apps WHERE is_default
                """)
            let gone = try await harness.client.query("SELECT id FROM broadcast_channels WHERE channel_id = 'Z29uZQ=='")
                .scalar(UUID.self)
            let unknown = try await call(
                "POST", "/channels/\(gone.uuidString.lowercased())/broadcasts", #"{"event":"end","contentState":{}}"#)
            #expect(unknown.0 == 409 && unknown.1.contains("ChannelNotRegistered"), "\(unknown.1)")
            let failedRows = try await harness.client.query(
                "SELECT count(*) FROM channel_broadcasts WHERE status = 'failed' AND apns_reason = 'ChannelNotRegistered'"
            ).scalar(Int.self)
            #expect(failedRows == 1, "a refused broadcast is logged too")
            harness.sandbox.limitChannels(to: 1)
            let full = try await call("POST", "/channels", #"{"appId":"default","messageStoragePolicy":0}"#)
            #expect(full.0 == 409 && full.1.contains("CannotCreateChannelConfig"), "\(full.1)")
            harness.sandbox.disableBroadcasts(for: EngineHarness.bundleID)
            let disabled = try await call(
                "POST", "/channels/\(storing)/broadcasts", #"{"event":"end","contentState":{}}"#)
            #expect(disabled.0 == 409 && disabled.1.contains("FeatureNotEnabled"), "\(disabled.1)")
            let badPolicy = try await call("POST", "/channels", #"{"appId":"default","messageStoragePolicy":2}"#)
            #expect(badPolicy.0 == 422 && field("field", badPolicy.1) == "messageStoragePolicy")
            _ = await server.stop()
            try await harness.stop()
        }
    }
}
