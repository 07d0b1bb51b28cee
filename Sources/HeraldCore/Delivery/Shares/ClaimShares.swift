public import Foundation

/// One app's deliveries in one lane: the unit the claim shares out.
public struct ClaimGroup: Hashable, Sendable {
    /// Stands for the app of deliveries whose device has none (registered before the default app was defined).
    public static let noApp = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    public var lane: DeliveryLane
    public var app: UUID

    public init(lane: DeliveryLane, app: UUID) {
        self.lane = lane
        self.app = app
    }
}

/// A group with due work when a claim is planned: its app's weight and how many of its deliveries are due (counted
/// up to the claim's size, which is all the plan needs).
public struct DueGroup: Hashable, Sendable {
    public var group: ClaimGroup
    public var weight: Int
    public var due: Int

    public init(_ group: ClaimGroup, weight: Int, due: Int) {
        self.group = group
        self.weight = weight
        self.due = due
    }
}

/// How one claim of `capacity` deliveries is shared between lanes and apps.
///
/// - Lanes: `immediate` is served first, but while `bulk` has due work it keeps a fifth of every claim of two or more
///   (at least one delivery), so a steady stream of immediate pushes slows a fan-out and never stops it. A claim of
///   one (the probe after a pause) goes to `immediate` first. Capacity a lane cannot use goes to the other.
/// - Apps: within a lane, each app with due work gets one delivery, then a part of the rest proportional to its
///   weight; what an app cannot use (fewer due than its part) goes to the others by weight again. So a single send of
///   one app is in the next claim even while another app drains a million-device fan-out, and the claim is never
///   smaller than the due work.
/// - The immediate lane's own claims: a claim may leave the first `leavingImmediate` due immediate deliveries to the
///   engine's loop that claims only that lane, so a single urgent push is not taken into a large claim; only what
///   exceeds that is claimed here (first, as above).
///
/// The plan is a pure function of the due work, so the rule is tested without a database or a clock.
public enum ClaimShares {
    /// While bulk has due work, it keeps at least `1 / bulkPart` of a claim.
    public static let bulkPart = 5

    /// How many deliveries to claim from each group; groups that get none are left out.
    public static func plan(capacity: Int, due: [DueGroup], leavingImmediate: Int = 0) -> [ClaimGroup: Int] {
        let waiting = due.filter { $0.due > 0 && $0.weight > 0 }
        guard capacity > 0, !waiting.isEmpty else { return [:] }
        let immediate = waiting.filter { $0.group.lane == .immediate }
        let bulk = waiting.filter { $0.group.lane == .bulk }
        let immediateDue = max(0, immediate.reduce(0) { $0 + $1.due } - max(0, leavingImmediate))
        let bulkDue = bulk.reduce(0) { $0 + $1.due }
        let bulkReserve = capacity < 2 || bulkDue == 0 ? 0 : min(bulkDue, max(1, capacity / bulkPart))
        let immediateTake = min(immediateDue, capacity - bulkReserve)
        let bulkTake = min(bulkDue, capacity - immediateTake)
        return weighted(immediateTake, among: immediate).merging(weighted(bulkTake, among: bulk)) { $0 + $1 }
    }

    /// Shares `capacity` between `groups`: first one delivery each (heaviest first, while the capacity lasts), so no
    /// app's due work waits for a later claim however light its weight; then the rest by weight, none beyond its due
    /// work (weighted max-min fairness). Integer parts round down; what rounding leaves goes one by one to the
    /// heaviest groups (ties by app id), so the result is the same for the same input.
    static func weighted(_ capacity: Int, among groups: [DueGroup]) -> [ClaimGroup: Int] {
        var open = groups.sorted {
            ($0.weight, $1.group.app.uuidString) > ($1.weight, $0.group.app.uuidString)
        }
        var shares: [ClaimGroup: Int] = [:]
        for group in open.prefix(capacity) { shares[group.group] = 1 }
        var remaining = capacity - shares.count
        open.removeAll { shares[$0.group, default: 0] >= $0.due }
        while remaining > 0 && !open.isEmpty {
            let totalWeight = open.reduce(0) { $0 + $1.weight }
            var given = 0
            for group in open {
                let take = min(remaining * group.weight / totalWeight, group.due - shares[group.group, default: 0])
                shares[group.group, default: 0] += take
                given += take
            }
            if given == 0 {
                for group in open.prefix(remaining) {
                    shares[group.group, default: 0] += 1
                    given += 1
                }
            }
            remaining -= given
            open.removeAll { shares[$0.group, default: 0] >= $0.due }
        }
        return shares.filter { $0.value > 0 }
    }
}
