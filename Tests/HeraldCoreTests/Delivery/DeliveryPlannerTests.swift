import APNsCore
import Foundation
import HeraldTesting
import Postgres
import Testing

@testable import HeraldCore

/// The planner decides without I/O: what needs no request, and the request for everything else.
@Suite struct DeliveryPlannerTests {
    static let planner = DeliveryPlanner(bundleID: "com.example.app")

    static func delivery(
        of notification: ClaimedNotification = notification(), token: String = String(repeating: "ab", count: 32),
        topic: String? = nil, active: Bool = true, movedToAnotherUser: Bool = false, variant: PayloadVariant = .default
    ) -> ClaimedDelivery {
        let user = UUID()
        return ClaimedDelivery(
            id: UUID(), notificationID: notification.id, userID: user, deviceID: UUID(), environment: .sandbox,
            attempt: 1, previousReason: nil, dueAt: Date(), notification: notification, deviceToken: token,
            deviceEnvironment: .sandbox, deviceTopic: topic, deviceActive: active,
            deviceUserID: movedToAnotherUser ? UUID() : user, deviceRegisteredAt: Date(), deviceAppID: nil,
            isDeviceToken: true,
            userExternalID: "alice",
            appearance: PushAppearance(soundEnabled: true, badgeEnabled: true), variant: variant, lane: .bulk,
            rowLocation: RowLocation(ctid: "(0,1)"), trace: nil)
    }

    static func notification(canceled: Bool = false, expiresAt: Date? = nil) -> ClaimedNotification {
        ClaimedNotification(
            id: UUID(), type: "custom", message: .success(.alert(title: "Herald", body: "Hello")),
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
                .cancel(reason: .notificationCanceled), .cancel(reason: .deviceInactive),
                .cancel(reason: .deviceMovedToAnotherUser), .expire,
            ])
        let paused = Self.planner.plan([Self.delivery()], now: now, paused: true)
        #expect(paused.pushes.isEmpty)
        #expect(paused.attempts.map { $0?.outcome } == [.release(reason: .keyPaused)])
    }

    @Test func deliveriesThatCannotBeSentFailWithTheReason() {
        let noTopic = DeliveryPlanner(bundleID: nil).plan([Self.delivery()], now: Date(), paused: false)
        #expect(noTopic.attempts.map { $0?.outcome } == [.fail(reason: .missingTopic)])
        let badToken = Self.planner.plan([Self.delivery(token: "not hex")], now: Date(), paused: false)
        #expect(badToken.attempts.map { $0?.outcome } == [.fail(reason: .invalidDeviceToken)])
        #expect(noTopic.pushes.isEmpty && badToken.pushes.isEmpty)
    }

    @Test func aNotificationsTemplateIsBuiltOncePerBatch() {
        let notification = Self.notification()
        let batch = (0..<50).map { _ in Self.delivery(of: notification) }
        let plan = Self.planner.plan(batch, now: Date(), paused: false)
        #expect(plan.pushes.count == 50)
        #expect(plan.contents.count == 1)
    }

    /// Voters of a status change read their own text: a batch holding both kinds of recipient of one notification
    /// builds one template per variant, and each delivery gets its own.
    @Test func eachVariantGetsItsOwnTemplate() throws {
        let message = NotificationMessage(
            payloads: [
                .default: Payload(aps: APS(alert: Alert(title: "Status Updated", body: "Dark mode is now Done"))),
                .voter: Payload(aps: APS(alert: Alert(title: "Status Updated", body: "Feedback you voted on: Done"))),
            ], pushType: .alert, priority: .immediate)
        let notification = ClaimedNotification(
            id: UUID(), type: "status_change", message: .success(message), canceled: false, expiresAt: nil,
            projectID: nil)
        let batch = [
            Self.delivery(of: notification), Self.delivery(of: notification, variant: .voter),
            Self.delivery(of: notification),
        ]
        let plan = Self.planner.plan(batch, now: Date(), paused: false)
        #expect(plan.contents.count == 2)
        let bodies = try plan.pushes.map {
            try JSONDecoder().decode(Payload.self, from: $0.request.payload).aps.alert?.body
        }
        #expect(bodies == ["Dark mode is now Done", "Feedback you voted on: Done", "Dark mode is now Done"])
    }

    /// A row the gateway did not write (or an older shape) fails with the decoder's reason in the log.
    @Test func unreadableContentFailsAsInvalidContentSayingWhy() throws {
        let stored = PostgresJSON(text: #"{"payloads": {"default": {"aps": {}}}, "pushType": "mdm", "priority": 10}"#)
        let unreadable = ClaimedNotification(
            id: UUID(), type: "custom", message: DeliveryStore.message(stored), canceled: false, expiresAt: nil,
            projectID: nil)
        let plan = Self.planner.plan([Self.delivery(of: unreadable)], now: Date(), paused: false)
        let attempt = try #require(plan.attempts.first ?? nil)
        #expect(attempt.outcome == .fail(reason: .invalidContent))
        #expect(attempt.errorMessage?.contains("mdm") == true, "\(attempt.errorMessage ?? "")")
    }
}
