import Foundation
import Postgres
import Testing

@testable import HeraldCore

/// Where each group's next claim starts, as a pure function of the claims before it and the clock.
@Suite struct ClaimPositionsTests {
    static let fanOut = ClaimGroup(lane: .bulk, app: UUID(uuidString: "00000000-0000-0000-0000-00000000000a")!)
    static let single = ClaimGroup(lane: .immediate, app: UUID(uuidString: "00000000-0000-0000-0000-00000000000b")!)

    static func position(_ due: Int64, _ id: String) -> ClaimPosition {
        ClaimPosition(
            due: PostgresTimestamp(microsecondsSince2000: due),
            id: UUID(uuidString: "00000000-0000-0000-0000-\(id)")!)
    }

    @Test func orderIsDueTimeThenTheIDsBytes() {
        #expect(Self.position(1, "00000000000f") < Self.position(2, "000000000000"))
        #expect(Self.position(2, "000000000001") < Self.position(2, "000000000002"))
        // Bytes, not the string: 0x0a < 0xa0 in the last byte, and an earlier byte decides before a later one.
        #expect(Self.position(2, "00000000000a") < Self.position(2, "0000000000a0"))
        #expect(Self.position(2, "0000000001ff") > Self.position(2, "0000000000ff"))
        #expect(ClaimPosition.front < Self.position(.min + 1, "000000000000"))
    }

    @Test func aGroupThatGotItsShareStartsAfterItsLastRow() {
        var positions = ClaimPositions()
        let start = ContinuousClock.now
        #expect(positions.start(at: start).isEmpty, "the first claim starts from the front")
        positions.advance(
            plan: [Self.fanOut: 3],
            claimed: [
                (Self.fanOut, Self.position(5, "000000000002")), (Self.fanOut, Self.position(5, "000000000003")),
                (Self.fanOut, Self.position(5, "000000000001")),
            ])
        #expect(positions.start(at: start + .milliseconds(10)) == [Self.fanOut: Self.position(5, "000000000003")])
        // A later claim that started from an older position (two workers at once) does not move it back.
        positions.advance(plan: [Self.fanOut: 1], claimed: [(Self.fanOut, Self.position(4, "000000000009"))])
        #expect(positions.start(at: start + .milliseconds(20)) == [Self.fanOut: Self.position(5, "000000000003")])
    }

    @Test func aGroupThatCameUpShortStartsFromTheFrontAgain() {
        var positions = ClaimPositions()
        let start = ContinuousClock.now
        _ = positions.start(at: start)
        positions.advance(
            plan: [Self.fanOut: 2, Self.single: 1],
            claimed: [
                (Self.fanOut, Self.position(5, "000000000001")), (Self.fanOut, Self.position(5, "000000000002")),
                (Self.single, Self.position(6, "000000000001")),
            ])
        #expect(positions.start(at: start).count == 2)
        // The fan-out got one of two: a row may lie behind its position, so its next claim reads from the front.
        positions.advance(
            plan: [Self.fanOut: 2, Self.single: 1],
            claimed: [(Self.fanOut, Self.position(7, "000000000001")), (Self.single, Self.position(8, "000000000001"))])
        #expect(positions.start(at: start) == [Self.single: Self.position(8, "000000000001")])
        // A group planned but given nothing forgets its position too.
        positions.advance(plan: [Self.single: 1], claimed: [])
        #expect(positions.start(at: start).isEmpty)
    }

    @Test func everyGroupStartsFromTheFrontOnceTheRescanIntervalHasPassed() {
        var positions = ClaimPositions()
        let start = ContinuousClock.now
        _ = positions.start(at: start)
        positions.advance(plan: [Self.fanOut: 1], claimed: [(Self.fanOut, Self.position(5, "000000000001"))])
        #expect(positions.start(at: start + ClaimPositions.rescanInterval - .milliseconds(1)).count == 1)
        #expect(positions.start(at: start + ClaimPositions.rescanInterval).isEmpty)
        // And the interval counts again from that rescan.
        positions.advance(plan: [Self.fanOut: 1], claimed: [(Self.fanOut, Self.position(9, "000000000001"))])
        #expect(positions.start(at: start + ClaimPositions.rescanInterval + .milliseconds(500)).count == 1)
    }
}

extension ClaimPositionsTests {
    @Test func aGroupWithNothingDueAfterItsPositionStartsFromTheFront() {
        var positions = ClaimPositions()
        let start = ContinuousClock.now
        _ = positions.start(at: start)
        positions.advance(
            plan: [Self.fanOut: 1, Self.single: 1],
            claimed: [(Self.fanOut, Self.position(5, "000000000001")), (Self.single, Self.position(6, "000000000001"))])
        positions.forget([Self.fanOut])
        #expect(positions.start(at: start) == [Self.single: Self.position(6, "000000000001")])
    }
}
