import Foundation
import HeraldCore
import HeraldTesting
import Postgres
import Testing

/// Deliveries canceled outside the engine leave the outbox and leave a `canceled` log row each, which a
/// notification's counts then show.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct DeliveryCancellationTests {
    @Test func removingADeviceCancelsOnlyItsDeliveriesIntoTheLog() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let alice = try await db.user("alice")
        let removed = try await db.device(alice)
        let kept = try await db.device(alice)
        let notification = try await db.sendDirect(to: alice)
        #expect(try await db.deliveries(notification).count == 2)

        #expect(try await db.devices.remove(removed, of: alice, in: .everyApp))
        #expect(Set(try await db.deliveries(notification).keys) == [kept], "the removed device's delivery left")
        let logged = try await db.logged(notification)
        #expect(logged.count == 1)
        #expect(logged.first?.0 == removed && logged.first?.1 == "canceled" && logged.first?.2 == 0)
        #expect(logged.first?.3 == "custom", "the notification's type")
        let status = try #require(try await db.notifications.status(notification, in: .everyApp))
        #expect(status.deliveries == ["pending": 1, "canceled": 1])

        #expect(try await db.devices.remove(removed, of: alice, in: .everyApp))
        #expect(try await db.logged(notification).count == 1, "nothing is canceled twice")
    }

    @Test func cancelingANotificationLogsEachOpenDeliveryOnce() async throws {
        let db = try await CoreDatabase.make()
        defer { db.client.shutdown() }
        let notification = try await db.sendDirect(to: try await db.user("bob", devices: 3))

        let canceled = try #require(try await db.notifications.cancel(notification, in: .everyApp))
        #expect(canceled.canceledDeliveries == 3)
        #expect(try await db.deliveries(notification).isEmpty)
        #expect(try await db.logged(notification).map(\.1) == ["canceled", "canceled", "canceled"])
        let status = try #require(try await db.notifications.status(notification, in: .everyApp))
        #expect(status.deliveries == ["canceled": 3])
        #expect(try await db.notifications.cancel(notification, in: .everyApp)?.canceledDeliveries == 0)
        #expect(try await db.logged(notification).count == 3)
    }
}
