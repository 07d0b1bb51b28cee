import APNsCore
import Foundation
import HeraldCore
import Hummingbird

/// Seed 002 FR-4: a user checks from the app's settings that pushes reach one of their devices.
struct DeviceTestRoutes {
    /// A test push that arrives later than this is no test of anything.
    static let lifetime: TimeInterval = 300

    let services: HeraldServices

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/devices/{deviceId}/test", method: .post) { _, context in
            let user = try context.requireUser()
            let deviceID = try context.uuid("deviceId")
            guard
                let device = try await services.devices.devices(of: user, in: context.appScope).first(where: {
                    $0.id == deviceID
                })
            else {
                throw APIError.notFound("you have no device with this id", field: "deviceId")
            }
            guard device.isActive else {
                throw APIError(.conflict, .conflict, "this device is no longer active", field: "deviceId")
            }
            // The app's test button is off while notifications are; a push now would say they work when they don't.
            guard try await services.directory.user(user)?.push.enabled ?? true else {
                throw APIError(
                    .conflict, .conflict, "push notifications are turned off for this user",
                    field: "pushNotificationsEnabled")
            }
            let accepted = try await services.notifications.accept(
                NotificationDraft(direct: Self.testPush(to: deviceID)), apiKeyID: context.apiKeyID)
            services.expansion?.wake()
            return EditedResponse(status: .accepted, response: AcceptedResponse(id: accepted.id))
        }
    }

    /// A direct push to the device alone; the user asked for it, so their toggles do not hold it back.
    static func testPush(to device: UUID) -> DirectNotification {
        var push = DirectNotification()
        push.deviceIDs = [device]
        push.type = "test"
        push.alert = Alert(title: "Test Notification", body: "Your notifications are working perfectly! 🎉")
        push.sound = .default
        push.respectPreferences = false
        // The user is at the settings screen now, waiting to see it arrive.
        push.respectQuietHours = false
        push.lane = .immediate
        push.expiration = Date(timeIntervalSinceNow: lifetime)
        return push
    }
}
