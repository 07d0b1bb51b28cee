import Foundation
import HeraldCore
import Hummingbird

/// `GET /api/v1/outbox`: the operations view, optional values written as null.
struct OutboxResponse: Encodable {
    struct DeliveryCount: Encodable {
        var lane: String
        var state: String
        var count: Int
    }

    struct AppRate: Encodable {
        var appId: String?
        var deliveriesPerSecond: Double

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(appId, forKey: .appId)
            try container.encode(deliveriesPerSecond, forKey: .deliveriesPerSecond)
        }

        private enum CodingKeys: String, CodingKey { case appId, deliveriesPerSecond }
    }

    struct SigningKey: Encodable {
        var key: OutboxSnapshot.SigningKey

        private enum CodingKeys: String, CodingKey {
            case teamId, keyId, state, pausedUntil, lastRefusalReason, lastRefusedAt
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key.teamID, forKey: .teamId)
            try container.encode(key.keyID, forKey: .keyId)
            try container.encode(key.state, forKey: .state)
            try container.encode(key.pausedUntil, forKey: .pausedUntil)
            try container.encode(key.lastRefusalReason, forKey: .lastRefusalReason)
            try container.encode(key.lastRefusedAt, forKey: .lastRefusedAt)
        }
    }

    struct Worker: Encodable {
        var worker: OutboxSnapshot.Worker

        private enum CodingKeys: String, CodingKey {
            case worker, host, startedAt, lastSeenAt, alive, inFlight, claimed, pausedUntil, pauseReason
            case consecutivePauses
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(worker.worker, forKey: .worker)
            try container.encode(worker.host, forKey: .host)
            try container.encode(worker.startedAt, forKey: .startedAt)
            try container.encode(worker.lastSeenAt, forKey: .lastSeenAt)
            try container.encode(worker.isAlive, forKey: .alive)
            try container.encode(worker.inFlight, forKey: .inFlight)
            try container.encode(worker.claimed, forKey: .claimed)
            try container.encode(worker.pausedUntil, forKey: .pausedUntil)
            try container.encode(worker.pauseReason, forKey: .pauseReason)
            try container.encode(worker.consecutivePauses, forKey: .consecutivePauses)
        }
    }

    var at: Date
    var deliveries: [DeliveryCount]
    var scheduled: [String: Int]
    var oldestPendingSeconds: Double?
    var apps: [AppRate]
    var signingKeys: [SigningKey]
    var workers: [Worker]

    init(_ snapshot: OutboxSnapshot) {
        at = snapshot.at
        deliveries = snapshot.queue.deliveries.map {
            DeliveryCount(lane: $0.lane.rawValue, state: $0.state, count: $0.count)
        }
        scheduled = Dictionary(uniqueKeysWithValues: snapshot.queue.scheduled.map { ($0.key.rawValue, $0.value) })
        oldestPendingSeconds = snapshot.queue.oldestPendingSeconds?.answerTenths
        apps = snapshot.appRates.map {
            AppRate(appId: $0.appID, deliveriesPerSecond: $0.deliveriesPerSecond.answerRate)
        }
        signingKeys = snapshot.signingKeys.map(SigningKey.init)
        workers = snapshot.workers.map(Worker.init)
    }

    private enum CodingKeys: String, CodingKey {
        case at, deliveries, scheduled, oldestPendingSeconds, apps, signingKeys, workers
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(deliveries, forKey: .deliveries)
        try container.encode(scheduled, forKey: .scheduled)
        try container.encode(oldestPendingSeconds, forKey: .oldestPendingSeconds)
        try container.encode(apps, forKey: .apps)
        try container.encode(signingKeys, forKey: .signingKeys)
        try container.encode(workers, forKey: .workers)
    }
}
