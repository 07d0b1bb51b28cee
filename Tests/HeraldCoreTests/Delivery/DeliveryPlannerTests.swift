import APNsCore
import Foundation
import Testing

@testable import HeraldCore

/// The planner decides without I/O: what needs no request, and the request for everything else.
@Suite struct DeliveryPlannerTests {
    static let planner = DeliveryPlanner(bundleID: "com.example.app")

    static func delivery(
        of notification: ClaimedNotification = notification(), token: String = String(repeating: "ab", count: 32),
        topic: String? = nil, active: Bool = true, movedToAnotherUser: Bool = false
    ) -> ClaimedDelivery {
        let user = UUID()
        return ClaimedDelivery(
            id: UUID(), notificationID: notification.id, userID: user, deviceID: UUID(), environment: .sandbox,
            attempt: 1, previousReason: nil, dueAt: Date(), notification: notification, deviceToken: token,
            deviceEnvironment: .sandbox, deviceTopic: topic, deviceActive: active,
            deviceUserID: movedToAnotherUser ? UUID() : user, deviceRegisteredAt: Date(), userExternalID: "alice",
            appearance: PushAppearance(soundEnabled: true, badgeEnabled: true), variant: "default",
            rowLocation: RowLocation(ctid: "(0,1)"))
    }

    static func notification(canceled: Bool = false, expiresAt: Date? = nil) -> ClaimedNotification {
        ClaimedNotification(
            id: UUID(), type: "custom", contents: ["default": NotificationContent(title: "Herald", body: "Hello")],
            canceled: canceled, expiresAt: expiresAt, projectID: nil)
    }

    @Test func sendableDeliveriesBecomeRequestsWithTheirIDAsAPNsID() throws {
        let delivery = Self.delivery()
        let plan = Self.planner.plan([delivery], now: Date(), paused: false)
        #expect(plan.attempts.count == 1 && plan.attempts[0] == nil)
        let push = try #require(plan.pushes.first)
        #expect(push.index == 0)
        #expect(push.request.apnsID == APNsID(delivery.id))
        #expect(push.request.topic == "com.example.app")
        #expect(plan.content(of: delivery) != nil)
    }

    @Test func deliveriesThatNeedNoRequestAreDecidedWithoutOne() {
        let now = Date()
        let batch = [
            Self.delivery(of: Self.notification(canceled: true)), Self.delivery(active: false),
            Self.delivery(movedToAnotherUser: true), Self.delivery(of: Self.notification(expiresAt: now)),
        ]
        let plan = Self.planner.plan(batch, now: now, paused: false)
        #expect(plan.pushes.isEmpty)
        #expect(
            plan.attempts.map { $0?.outcome } == [
                .cancel(reason: "NotificationCanceled"), .cancel(reason: "DeviceInactive"),
                .cancel(reason: "DeviceMovedToAnotherUser"), .expire,
            ])
        let paused = Self.planner.plan([Self.delivery()], now: now, paused: true)
        #expect(paused.pushes.isEmpty)
        #expect(paused.attempts.map { $0?.outcome } == [.release(reason: "KeyPaused")])
    }

    @Test func deliveriesThatCannotBeSentFailWithTheReason() {
        let noTopic = DeliveryPlanner(bundleID: nil).plan([Self.delivery()], now: Date(), paused: false)
        #expect(noTopic.attempts.map { $0?.outcome } == [.fail(reason: "MissingTopic")])
        let badToken = Self.planner.plan([Self.delivery(token: "not hex")], now: Date(), paused: false)
        #expect(badToken.attempts.map { $0?.outcome } == [.fail(reason: "InvalidDeviceToken")])
        #expect(noTopic.pushes.isEmpty && badToken.pushes.isEmpty)
    }

    @Test func aNotificationsTemplateIsBuiltOncePerBatch() {
        let notification = Self.notification()
        let batch = (0..<50).map { _ in Self.delivery(of: notification) }
        let plan = Self.planner.plan(batch, now: Date(), paused: false)
        #expect(plan.pushes.count == 50)
        #expect(plan.contents.count == 1)
    }
}
