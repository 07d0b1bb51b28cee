public import APNsCore
public import Foundation
public import Postgres

/// Why Apple did not do what a channel request asked.
public enum ChannelFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Apple refused with this status and reason (`ChannelNotRegistered`, `CannotCreateChannelConfig`,
    /// `FeatureNotEnabled`, …).
    case refused(status: Int, reason: APNsReason)
    /// No active signing key of the app's team may sign for it.
    case noSigningKey(String)
    /// No answer came from Apple.
    case unavailable(String)

    init(_ failure: TransportFailure) {
        if case .noSigningKey(let why) = failure {
            self = .noSigningKey(why)
        } else {
            self = .unavailable(failure.description)
        }
    }

    public var description: String {
        switch self {
        case .refused(let status, let reason): "APNs refused with \(status) \(reason.name)"
        case .noSigningKey(let why): why
        case .unavailable(let why): "APNs did not answer: \(why)"
        }
    }
}

/// Broadcast channels through Apple's channel management API, and broadcasts to them: one APNs request each,
/// whatever the number of subscribers, and one log row each with Apple's answer.
public struct BroadcastChannels: Sendable {
    public let store: BroadcastChannelStore
    private let apps: AppStore
    private let apns: any APNsTransport

    public init(client: PostgresClient, apns: any APNsTransport) {
        store = BroadcastChannelStore(client: client)
        apps = AppStore(client: client)
        self.apns = apns
    }

    /// Makes a channel with Apple for `app` and records it.
    /// - Throws: ``DomainError`` `.notFound` (field `appId`) for an app outside `scope`; ``ChannelFailure``.
    public func create(
        app appID: ExternalID, environment: PushEnvironment?, policy: MessageStoragePolicy, in scope: AppScope
    ) async throws -> BroadcastChannel {
        guard scope.admits(appID), let app = try await apps.app(appID) else {
            throw DomainError.notFound("no app has this id", field: "appId")
        }
        let environment = environment ?? app.defaultEnvironment
        let request = try PushRequest(channelOperation: .create(policy), bundleID: app.bundleID)
        let receipt = try await send(request, environment)
        guard let id = receipt.channelID else {
            throw ChannelFailure.unavailable("Apple created a channel without answering its apns-channel-id")
        }
        return try await store.insert(id, app: appID, environment: environment, policy: policy)
    }

    /// Deletes `channel` at Apple (one Apple no longer knows counts as deleted) and forgets it.
    /// - Throws: ``ChannelFailure``.
    public func delete(_ channel: BroadcastChannel) async throws {
        guard let app = try await apps.app(channel.app) else { return try await store.delete(channel.id) }
        do {
            _ = try await send(
                try PushRequest(channelOperation: .delete(channel.apnsChannelID), bundleID: app.bundleID),
                channel.environment)
        } catch ChannelFailure.refused(_, .channelNotRegistered) {}
        try await store.delete(channel.id)
    }

    /// Sends `broadcast` to `channel` as one APNs request and logs it.
    /// - Returns: the log row.
    /// - Throws: ``DomainError`` `.invalid` for an expiration the channel's policy refuses, `.notFound` when its app
    ///   is gone; ``ChannelFailure`` after logging it.
    public func broadcast(_ broadcast: LiveActivityUpdate, to channel: BroadcastChannel, apiKeyID: UUID?)
        async throws -> ChannelBroadcastRecord
    {
        guard let app = try await apps.app(channel.app) else {
            throw DomainError.notFound("no channel has this id", field: "channelId")
        }
        let now = Date()
        let request = try PushRequest(
            channel: channel.apnsChannelID, bundleID: app.bundleID, priority: broadcast.priority,
            expiration: try broadcast.broadcastExpiration(for: channel.storagePolicy, now: now),
            payload: broadcast.payload(at: now))
        let started = ContinuousClock.now
        let result = try await apns.send(request, environment: channel.environment.apns)
        let elapsed = ContinuousClock.now - started
        var record = ChannelBroadcastRecord(
            id: request.apnsID.uuid, channel: channel.apnsChannelID, event: broadcast.event, status: "sent",
            httpStatus: 200, reason: nil, uniqueID: nil,
            latencyMs: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            createdAt: now)
        var failure: ChannelFailure?
        switch result {
        case .accepted(let receipt): record.uniqueID = receipt.uniqueID
        case .rejected(let rejection):
            record.status = "failed"
            record.httpStatus = rejection.status
            record.reason = rejection.reason.name
            failure = .refused(status: rejection.status, reason: rejection.reason)
        case .failed(let transport):
            record.status = "failed"
            record.httpStatus = nil
            record.reason = transport.description
            failure = ChannelFailure(transport)
        }
        try await store.record(record, app: channel.app, apiKeyID: apiKeyID)
        if let failure { throw failure }
        return record
    }

    private func send(_ request: PushRequest, _ environment: PushEnvironment) async throws -> PushReceipt {
        switch try await apns.send(request, environment: environment.apns) {
        case .accepted(let receipt): return receipt
        case .rejected(let rejection): throw ChannelFailure.refused(status: rejection.status, reason: rejection.reason)
        case .failed(let failure): throw ChannelFailure(failure)
        }
    }
}
