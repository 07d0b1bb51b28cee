import APNsCore
import Foundation
import HeraldCore
import Hummingbird

/// Broadcast channels (iOS 18): made and deleted through Apple's channel management API (admin key), listed (any
/// key), and broadcast to (send key) with one APNs request each, whatever the audience. Only a process that sends
/// to APNs serves them.
struct ChannelRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/channels", method: .post) { request, context in
            _ = try context.requireAPIKey(.admin)
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["appId", "environment", "messageStoragePolicy"])
            guard let app = try context.appScope.narrow(try body.externalID("appId")) else {
                throw APIError.validation("name the app the channel is for", field: "appId")
            }
            var environment: PushEnvironment?
            if let text = try body.string("environment") {
                guard let named = PushEnvironment(rawValue: text) else {
                    throw APIError.validation("must be sandbox or production", field: "environment")
                }
                environment = named
            }
            guard let value = try body.integer("messageStoragePolicy"),
                let policy = MessageStoragePolicy(rawValue: value)
            else {
                throw APIError.validation(
                    "must be 0 (nothing stored) or 1 (the most recent broadcast kept up to 8 hours)",
                    field: "messageStoragePolicy")
            }
            let channels = try available()
            let channel = try await Self.apple {
                try await channels.create(app: app, environment: environment, policy: policy, in: context.appScope)
            }
            return EditedResponse(status: .created, response: ChannelResponse(channel))
        }
        router.on("/api/v1/channels", method: .get) { _, context in
            _ = try context.requireAPIKey(.read)
            let channels = try await services.channelStore.list(in: context.appScope)
            return ChannelListResponse(channels: channels.map(ChannelResponse.init))
        }
        router.on("/api/v1/channels/{channelId}", method: .delete) { _, context in
            _ = try context.requireAPIKey(.admin)
            let channel = try await visibleChannel(context)
            let channels = try available()
            try await Self.apple { try await channels.delete(channel) }
            return Response(status: .noContent)
        }
        router.on("/api/v1/channels/{channelId}/broadcasts", method: .post) { request, context in
            let key = try context.requireAPIKey(.send)
            let channel = try await visibleChannel(context)
            let channels = try available()
            let now = Date()
            let broadcast = try ChannelBroadcastRequest.parse(
                try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize)), now: now)
            let record = try await Self.apple {
                try await channels.broadcast(broadcast, to: channel, apiKeyID: key.id)
            }
            return EditedResponse(status: .created, response: BroadcastResponse(record))
        }
        router.on("/api/v1/channels/{channelId}/broadcasts", method: .get) { request, context in
            _ = try context.requireAPIKey(.read)
            let channel = try await visibleChannel(context)
            let records = try await services.channelStore.broadcasts(to: channel.apnsChannelID, limit: 100)
            return BroadcastListResponse(broadcasts: records.map(BroadcastResponse.init))
        }
    }

    /// The path's channel, when it is in the caller's scope; 404 otherwise, before anything else.
    private func visibleChannel(_ context: HeraldRequestContext) async throws -> BroadcastChannel {
        guard let channel = try await services.channelStore.channel(try context.uuid("channelId"), in: context.appScope)
        else { throw APIError.notFound("no channel has this id", field: "channelId") }
        return channel
    }

    private func available() throws(APIError) -> BroadcastChannels {
        guard let channels = services.channels else {
            throw APIError(
                .serviceUnavailable, .unavailable,
                "this process does not send to APNs; run herald serve with the APNS_* settings to manage channels")
        }
        return channels
    }

    /// Runs a request to Apple, turning its refusals into answers.
    private static func apple<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as ChannelFailure {
            throw failure.apiError
        }
    }
}
