import APNsCore
public import Foundation

extension NotificationDraft {
    /// A remote start: the push-to-start tokens of the named users' and devices'. The global push toggle applies,
    /// as for any push the user did not ask for.
    public init(start: LiveActivityStart, at now: Date) {
        kind = .direct
        type = "liveactivity.start"
        message = NotificationMessage(
            payload: start.payload(at: now), pushType: .liveActivity, priority: start.priority)
        targets = NotificationTargets(
            userIDs: start.userIDs, deviceIDs: start.deviceIDs, app: start.app, pushToStart: start.attributesType)
        respectPreferences = true
        // An activity starts when its event does (a match, a delivery); held back, it would start late.
        respectQuietHours = false
        expiresAt = start.expiration
        lane = .default(for: message)
    }

    /// An update or end of a running activity: its update tokens. The user keeps the activity on screen, so
    /// toggles for notifications do not hold its updates back.
    public init(update: LiveActivityUpdate, of activity: ExternalID, app: ExternalID?, at now: Date) {
        kind = .direct
        type = "liveactivity.\(update.event.rawValue)"
        message = NotificationMessage(
            payload: update.payload(at: now), pushType: .liveActivity, priority: update.priority)
        targets = NotificationTargets(app: app, activity: activity)
        respectPreferences = false
        respectQuietHours = false
        expiresAt = update.expiration
        lane = .default(for: message)
    }
}
