import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// Claims start after the last delivery claimed in their group, and a pending row left behind that position is
    /// still claimed, without waiting for the periodic rescan.
    @Suite struct ClaimPositionDatabaseTests {
        @Test func claimsGoOnAfterTheLastOneAndStillFindARowLeftBehind() async throws {
            let harness = try await EngineHarness.start()
            let notification = try await harness.insertFanOut(count: 30, tokenPrefix: "c0")
            let store = DeliveryStore(client: harness.client)
            let first = try await store.claim(limit: 10, workerID: "w", lease: .seconds(60))
            let second = try await store.claim(limit: 10, workerID: "w", lease: .seconds(60))
            #expect(first.count == 10)
            #expect(second.count == 10)
            #expect(Set(first.map(\.id)).isDisjoint(with: second.map(\.id)))

            // One of the first claim's rows goes back to pending (as a released send does): it now lies behind the
            // group's position, which the next claim starts after.
            let released = first[0].id
            try await harness.client.execute(
                """
                UPDATE deliveries SET state = 'pending', claimed_by = NULL, lease_expires_at = NULL
                WHERE id = \(released)
                """)
            let third = try await store.claim(limit: 11, workerID: "w", lease: .seconds(60))
            #expect(third.count == 10, "the ten after the position")
            #expect(!third.map(\.id).contains(released))
            // Nothing is due after the position now: the next claim reads from the front and finds the released row.
            let fourth = try await store.claim(limit: 10, workerID: "w", lease: .seconds(60))
            #expect(fourth.map(\.id) == [released])
            #expect(try await harness.states(of: notification) == ["sending": 30])
            try await harness.stop()
        }
    }
}
