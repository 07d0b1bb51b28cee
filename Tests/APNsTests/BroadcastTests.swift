import APNs
import APNsCore
import APNsMock
import Foundation
import HeraldTesting
import Testing

extension Networked {
    /// Broadcast channels through one pool against `apns-mock`, which follows Apple's channel management and
    /// broadcast documentation: create, read, list and delete a channel, broadcast to it with Apple's headers
    /// (no topic, `apns-channel-id`, `apns-expiration` per storage policy), and each documented error typed.
    @Suite
    struct BroadcastTests {
        static let bundleID = MockHarness.bundleID

        static func channel(_ operation: ChannelOperation) throws -> PushRequest {
            try PushRequest(channelOperation: operation, bundleID: bundleID)
        }

        static func update(_ channel: ChannelID, expiration: PushExpiration = .immediately) throws -> PushRequest {
            try PushRequest(
                channel: channel, bundleID: bundleID, priority: .powerConsidered, expiration: expiration,
                payload: Payload(
                    aps: APS(timestamp: 1_700_000_000, event: .update, contentState: .object(["score": .int(2)]))))
        }

        static func rejection(_ result: PushResult) -> String? {
            if case .rejected(let rejection) = result, rejection.reason != .unknown(rejection.reason.name) {
                rejection.reason.name
            } else {
                nil
            }
        }

        @Test func aChannelIsCreatedBroadcastToListedAndDeleted() async throws {
            let harness = try await MockHarness.start()
            defer { Task { try await harness.stop() } }
            try await harness.withPool(harness.configuration()) { pool in
                guard case .accepted(let created) = try await pool.send(try Self.channel(.create(.noStorage))),
                    let channel = created.channelID
                else { throw CancellationError() }
                guard case .accepted(let stored) = try await pool.send(try Self.channel(.create(.mostRecent))),
                    let storing = stored.channelID
                else { throw CancellationError() }

                guard case .accepted(let read) = try await pool.send(try Self.channel(.read(storing))) else {
                    throw CancellationError()
                }
                #expect(String(decoding: read.body, as: UTF8.self).contains(#""message-storage-policy":1"#))
                guard case .accepted(let listed) = try await pool.send(try Self.channel(.list)) else {
                    throw CancellationError()
                }
                let list = String(decoding: listed.body, as: UTF8.self)
                #expect(list.contains(channel.rawValue) && list.contains(storing.rawValue))

                let broadcast = try Self.update(channel)
                guard case .accepted(let receipt) = try await pool.send(broadcast) else {
                    throw CancellationError()
                }
                #expect(receipt.apnsID == broadcast.apnsID && receipt.uniqueID != nil)
                let sent = try #require(harness.mock.recordedRequests.last)
                #expect(sent.path == "/4/broadcasts/apps/\(Self.bundleID)")
                #expect(sent.header("apns-channel-id") == channel.rawValue)
                #expect(sent.header("apns-push-type") == "liveactivity" && sent.header("apns-topic") == nil)
                #expect(sent.header("apns-expiration") == "0" && sent.header("apns-priority") == "5")
                #expect(sent.header("apns-request-id") == broadcast.apnsID.description)

                let later = Date().addingTimeInterval(3600)
                #expect(
                    Self.rejection(try await pool.send(try Self.update(channel, expiration: .at(later))))
                        == "BadExpirationDate", "a channel that stores nothing takes expiration 0 only")
                if case .accepted = try await pool.send(try Self.update(storing, expiration: .at(later))) {
                } else {
                    Issue.record("a storing channel takes a future expiration")
                }

                guard case .accepted = try await pool.send(try Self.channel(.delete(channel))) else {
                    throw CancellationError()
                }
                #expect(Self.rejection(try await pool.send(try Self.update(channel))) == "ChannelNotRegistered")
                #expect(Self.rejection(try await pool.send(try Self.channel(.read(channel)))) == "ChannelNotRegistered")

                harness.mock.limitChannels(to: 1)
                #expect(
                    Self.rejection(try await pool.send(try Self.channel(.create(.noStorage))))
                        == "CannotCreateChannelConfig")
                harness.mock.disableBroadcasts(for: Self.bundleID)
                #expect(Self.rejection(try await pool.send(try Self.update(storing))) == "FeatureNotEnabled")
            }
        }
    }
}
