import Foundation
import Postgres
import Synchronization

/// A delivery's place in the claim's order within its lane and app (`deliveries_claim_idx`, migration 0048): its due
/// time, exactly as stored, then its id.
struct ClaimPosition: Comparable, Hashable, Sendable {
    /// Before every delivery: where a group without a position starts.
    static let front = ClaimPosition(
        due: .negativeInfinity, id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))

    var due: PostgresTimestamp
    var id: UUID

    /// PostgreSQL's order: due time, then the id's bytes.
    static func < (lhs: ClaimPosition, rhs: ClaimPosition) -> Bool {
        if lhs.due != rhs.due { return lhs.due < rhs.due }
        return withUnsafeBytes(of: lhs.id.uuid) { left in
            withUnsafeBytes(of: rhs.id.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}

/// Where each lane's and app's claims have reached: the position of the last delivery claimed.
///
/// Deliveries in flight stay in the claim's index until their answers are recorded, ahead of every pending one of
/// their group, up to the send window's ceiling. A claim that starts after the last one claimed reads only pending
/// rows, where one that starts from the front reads every row in flight to see it is no longer pending.
///
/// A pending row can lie behind a group's position: one inserted with an earlier due time by a transaction that
/// committed late, or one another transaction held locked when a claim passed it. So a group claims from the front
/// again once a claim came up short of its share or found nothing due after its position, and every group does once
/// ``rescanInterval`` has passed since the last time all did: such a row waits at most that long. A pure value, so
/// the rule is tested without a database.
struct ClaimPositions {
    static let rescanInterval = Duration.seconds(1)

    private var reached: [ClaimGroup: ClaimPosition] = [:]
    private var keptSince: ContinuousClock.Instant?

    /// The positions the next claim starts after; a group without one starts from the front.
    mutating func start(at now: ContinuousClock.Instant) -> [ClaimGroup: ClaimPosition] {
        if let keptSince, now - keptSince < Self.rescanInterval { return reached }
        reached = [:]
        keptSince = now
        return [:]
    }

    /// `groups` have no due work after their positions: any row they have lies behind them, so they start from the
    /// front next time.
    mutating func forget(_ groups: some Sequence<ClaimGroup>) {
        for group in groups { reached[group] = nil }
    }

    /// After a claim planned `plan` and claimed `claimed`: a group that got its whole share moves on to the last
    /// position it claimed; one that got less starts from the front next time.
    mutating func advance(plan: [ClaimGroup: Int], claimed: [(group: ClaimGroup, position: ClaimPosition)]) {
        var counts: [ClaimGroup: Int] = [:]
        var last: [ClaimGroup: ClaimPosition] = [:]
        for (group, position) in claimed {
            counts[group, default: 0] += 1
            last[group] = max(last[group] ?? position, position)
        }
        for (group, share) in plan {
            guard let position = last[group], counts[group, default: 0] >= share else {
                reached[group] = nil
                continue
            }
            reached[group] = max(reached[group] ?? position, position)
        }
    }
}

/// One engine's ``ClaimPositions``, shared by its workers.
final class SharedClaimPositions: Sendable {
    private let positions = Mutex(ClaimPositions())

    func start() -> [ClaimGroup: ClaimPosition] { positions.withLock { $0.start(at: .now) } }

    func forget(_ groups: some Sequence<ClaimGroup>) { positions.withLock { $0.forget(groups) } }

    func advance(plan: [ClaimGroup: Int], claimed: [(group: ClaimGroup, position: ClaimPosition)]) {
        positions.withLock { $0.advance(plan: plan, claimed: claimed) }
    }
}
