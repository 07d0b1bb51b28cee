import APNsCore
import Foundation
import Testing

@testable import HeraldCore

/// The lane and share rules, as pure functions of the due work a claim sees.
@Suite struct ClaimSharesTests {
    static let fanOutApp = UUID(uuidString: "00000000-0000-0000-0000-00000000000a")!
    static let otherApp = UUID(uuidString: "00000000-0000-0000-0000-00000000000b")!
    static let thirdApp = UUID(uuidString: "00000000-0000-0000-0000-00000000000c")!

    static func due(_ lane: DeliveryLane, _ app: UUID, weight: Int = 1, _ count: Int) -> DueGroup {
        DueGroup(ClaimGroup(lane: lane, app: app), weight: weight, due: count)
    }

    @Test func oneGroupTakesTheWholeClaim() {
        #expect(
            ClaimShares.plan(capacity: 500, due: [Self.due(.bulk, Self.fanOutApp, 1_000_000)])
                == [ClaimGroup(lane: .bulk, app: Self.fanOutApp): 500])
        #expect(
            ClaimShares.plan(capacity: 500, due: [Self.due(.bulk, Self.fanOutApp, 30)])
                == [ClaimGroup(lane: .bulk, app: Self.fanOutApp): 30])
        #expect(ClaimShares.plan(capacity: 500, due: []).isEmpty)
        #expect(ClaimShares.plan(capacity: 0, due: [Self.due(.bulk, Self.fanOutApp, 3)]).isEmpty)
    }

    @Test func immediateGoesFirstAndBulkKeepsAFifth() {
        let plan = ClaimShares.plan(
            capacity: 500, due: [Self.due(.immediate, Self.otherApp, 10_000), Self.due(.bulk, Self.fanOutApp, 10_000)])
        #expect(plan[ClaimGroup(lane: .immediate, app: Self.otherApp)] == 400)
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 100)
        // A small claim still moves bulk by at least one.
        let small = ClaimShares.plan(
            capacity: 3, due: [Self.due(.immediate, Self.otherApp, 50), Self.due(.bulk, Self.fanOutApp, 50)])
        #expect(
            small == [
                ClaimGroup(lane: .immediate, app: Self.otherApp): 2, ClaimGroup(lane: .bulk, app: Self.fanOutApp): 1,
            ])
        // The probe, a claim of one, goes to immediate.
        let probe = ClaimShares.plan(
            capacity: 1, due: [Self.due(.bulk, Self.fanOutApp, 50), Self.due(.immediate, Self.otherApp, 1)])
        #expect(probe == [ClaimGroup(lane: .immediate, app: Self.otherApp): 1])
    }

    @Test func aLaneLeavesWhatItCannotUseToTheOther() {
        let few = ClaimShares.plan(
            capacity: 500, due: [Self.due(.immediate, Self.otherApp, 3), Self.due(.bulk, Self.fanOutApp, 10_000)])
        #expect(few[ClaimGroup(lane: .immediate, app: Self.otherApp)] == 3)
        #expect(few[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 497)
        let littleBulk = ClaimShares.plan(
            capacity: 500, due: [Self.due(.immediate, Self.otherApp, 10_000), Self.due(.bulk, Self.fanOutApp, 7)])
        #expect(littleBulk[ClaimGroup(lane: .immediate, app: Self.otherApp)] == 493)
        #expect(littleBulk[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 7)
    }

    /// Bulk is never starved: claim after claim of a steady immediate stream, the fan-out still drains.
    @Test func bulkDrainsUnderASteadyImmediateStream() {
        var bulkLeft = 2_000
        var claims = 0
        while bulkLeft > 0 && claims < 1_000 {
            let plan = ClaimShares.plan(
                capacity: 100,
                due: [Self.due(.immediate, Self.otherApp, 1_000_000), Self.due(.bulk, Self.fanOutApp, bulkLeft)])
            bulkLeft -= plan[ClaimGroup(lane: .bulk, app: Self.fanOutApp), default: 0]
            claims += 1
        }
        #expect(bulkLeft == 0 && claims == 100)
    }

    @Test func appsShareALaneByWeight() {
        let plan = ClaimShares.plan(
            capacity: 500,
            due: [
                Self.due(.bulk, Self.fanOutApp, weight: 3, 1_000_000),
                Self.due(.bulk, Self.otherApp, weight: 1, 1_000_000),
            ])
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 375)
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.otherApp)] == 125)
    }

    /// One app's fan-out cannot hold back another app's single send: it is in the very next claim.
    @Test func aSingleSendOfAnotherAppIsInTheNextClaim() {
        let plan = ClaimShares.plan(
            capacity: 500,
            due: [
                Self.due(.bulk, Self.fanOutApp, weight: 1000, 1_000_000), Self.due(.bulk, Self.otherApp, weight: 1, 1),
            ])
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.otherApp)] == 1)
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 499)
    }

    @Test func whatAnAppCannotUseGoesToTheOthersByWeight() {
        let plan = ClaimShares.plan(
            capacity: 100,
            due: [
                Self.due(.bulk, Self.fanOutApp, weight: 1, 1_000), Self.due(.bulk, Self.otherApp, weight: 1, 10),
                Self.due(.bulk, Self.thirdApp, weight: 2, 1_000),
            ])
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.otherApp)] == 10)
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 30)
        #expect(plan[ClaimGroup(lane: .bulk, app: Self.thirdApp)] == 60)
    }

    /// A worker's claim leaves as many due immediate deliveries as the immediate lane's loop can take at once, and
    /// takes only what exceeds that, first as ever.
    @Test func aClaimLeavesTheImmediateLanesLoopItsReserve() {
        let single = ClaimShares.plan(
            capacity: 500, due: [Self.due(.immediate, Self.otherApp, 1), Self.due(.bulk, Self.fanOutApp, 10_000)],
            leavingImmediate: 125)
        #expect(single == [ClaimGroup(lane: .bulk, app: Self.fanOutApp): 500])
        let burst = ClaimShares.plan(
            capacity: 500, due: [Self.due(.immediate, Self.otherApp, 300), Self.due(.bulk, Self.fanOutApp, 10_000)],
            leavingImmediate: 125)
        #expect(burst[ClaimGroup(lane: .immediate, app: Self.otherApp)] == 175)
        #expect(burst[ClaimGroup(lane: .bulk, app: Self.fanOutApp)] == 325)
        let onlyImmediate = ClaimShares.plan(
            capacity: 500, due: [Self.due(.immediate, Self.otherApp, 100)], leavingImmediate: 125)
        #expect(onlyImmediate.isEmpty)
        // With nothing left to the loop (a probe, or no reserve), the rule is the one above.
        let probe = ClaimShares.plan(
            capacity: 1, due: [Self.due(.bulk, Self.fanOutApp, 50), Self.due(.immediate, Self.otherApp, 1)],
            leavingImmediate: 0)
        #expect(probe == [ClaimGroup(lane: .immediate, app: Self.otherApp): 1])
    }

    @Test func roundingIsSharedOutAndTheClaimIsFull() {
        let apps = (1...7).map { UUID(uuidString: "00000000-0000-0000-0000-00000000010\($0)")! }
        let plan = ClaimShares.plan(capacity: 10, due: apps.map { Self.due(.bulk, $0, 1_000) })
        #expect(plan.values.reduce(0, +) == 10)
        #expect(plan.values.allSatisfy { (1...2).contains($0) })
        #expect(plan == ClaimShares.plan(capacity: 10, due: apps.reversed().map { Self.due(.bulk, $0, 1_000) }))
    }

    @Test func theDefaultLaneFollowsWhatThePushIs() {
        func message(_ type: PushType, priority: PushPriority? = nil, level: APS.InterruptionLevel? = nil)
            -> NotificationMessage
        {
            NotificationMessage(
                payload: Payload(aps: APS(alert: .init(title: "t"), interruptionLevel: level)), pushType: type,
                priority: priority)
        }
        #expect(DeliveryLane.default(for: message(.voip)) == .immediate)
        #expect(DeliveryLane.default(for: message(.pushToTalk)) == .immediate)
        #expect(DeliveryLane.default(for: message(.liveActivity)) == .immediate)
        #expect(DeliveryLane.default(for: message(.alert, level: .timeSensitive)) == .immediate)
        #expect(DeliveryLane.default(for: message(.alert, level: .critical)) == .immediate)
        #expect(DeliveryLane.default(for: message(.alert, priority: .powerConsidered, level: .timeSensitive)) == .bulk)
        #expect(DeliveryLane.default(for: message(.alert)) == .bulk)
        #expect(DeliveryLane.default(for: message(.alert, level: .active)) == .bulk)
        #expect(DeliveryLane.default(for: message(.background)) == .bulk)
        #expect(DeliveryLane.default(for: message(.widgets)) == .bulk)
    }
}
